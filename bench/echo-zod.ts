/** The echo tool's input schema (bench/echo-tool.ts) as a zod 4 shape: what SDK 1.x `registerTool` takes. */
import { z } from 'zod';

export const echoZodShape = (description = 'Text to echo') => ({
  text: z.string().describe(description),
  count: z.number().int().min(0),
  upper: z.boolean(),
});
