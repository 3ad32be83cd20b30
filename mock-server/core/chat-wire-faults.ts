// The faults that bend the chat completions wire (its chunks, messages, tool calls, formats):
// they belong to the chat route. Another API that reuses the chat route's generation (the Responses
// route) runs it without them, so each stays a fault of the requirements it names and nothing else.
import { coreFaults } from './fault-catalogue.ts';
import { chatFaults } from './chat-faults.ts';
import { responseFormatFaults } from './response-format.ts';
import { toolBreadthFaults } from './tool-breadth-faults.ts';
import { reasoningFaults } from './reasoning.ts';

const chatWire = (id: string): boolean => id.startsWith('CHAT-') || id.startsWith('TOOLS-');

export const chatFaultNames: ReadonlySet<string> = new Set([
  ...coreFaults.filter((f) => f.breaks.length > 0 && f.breaks.every(chatWire)).map((f) => f.name),
  ...chatFaults.map((f) => f.name),
  ...responseFormatFaults.map((f) => f.name),
  ...toolBreadthFaults.map((f) => f.name),
  ...reasoningFaults.map((f) => f.name),
]);
