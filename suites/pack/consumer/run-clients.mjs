// Plain Node ESM: node run-clients.mjs [--no-ai-sdk] prints what the clients got through iari/msw.
import { driveClients } from './msw-clients.mjs';

const result = await driveClients({ aiSdk: !process.argv.includes('--no-ai-sdk') });
process.stdout.write(`${JSON.stringify(result)}\n`);
