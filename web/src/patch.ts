// JSON Patch (RFC 6902), as a replay sends each step's change of the public view: the page's
// first step carries the whole view, each later step the patch from the previous step's view.
// Applied by fast-json-patch, with every operation validated against the document as it stands
// (a path that does not resolve, an index past an array's end, a failed test: an error, never a
// silently different view), to a copy: a replay keeps every step's view, so the view a patch
// applies to is never modified.

import { JsonPatchError, type Operation, applyPatch as applyJsonPatch } from "fast-json-patch";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A patch that cannot be applied: which operation, and why. */
export class PatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PatchError";
  }
}

/** `document` with `patch` (add, remove, replace, move, copy, test) applied; `document` itself
 * is unchanged. A patch that does not apply throws a PatchError naming the operation. */
export function applyPatch(document: Json, patch: unknown): Json {
  if (!Array.isArray(patch)) throw new PatchError("a JSON Patch is a list of operations");
  // The one check RFC 6902 asks for that fast-json-patch's validation leaves out.
  for (const [index, operation] of (patch as unknown[]).entries()) {
    const { op, from, path } = (operation ?? {}) as Partial<Operation> & { from?: unknown };
    if (op === "move" && typeof from === "string" && typeof path === "string" && path.startsWith(`${from}/`)) {
      throw new PatchError(`cannot apply JSON Patch operation ${index} ("move" at ${JSON.stringify(path)}): a value cannot move into itself`);
    }
  }
  try {
    return applyJsonPatch(document, patch as Operation[], true, false).newDocument;
  } catch (error) {
    if (error instanceof JsonPatchError) {
      // fast-json-patch's message also lists the whole document: keep its first line, and say
      // which operation.
      const why = error.message.split("\n")[0];
      const operation = (error.operation ?? {}) as Partial<Operation>;
      throw new PatchError(
        `cannot apply JSON Patch operation ${error.index ?? "?"} (${JSON.stringify(operation.op)} at ${JSON.stringify(operation.path)}): ${why} (${error.name})`,
      );
    }
    throw new PatchError(`cannot apply JSON Patch: ${error instanceof Error ? error.message : String(error)}`);
  }
}
