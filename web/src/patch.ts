// JSON Patch (RFC 6902), as a replay sends each step's change of the public view: the page's
// first step carries the whole view, each later step the patch from the previous step's view.
// A patch is applied by copying only the objects and arrays on the changed paths, so the view
// it applies to is never modified and shares every untouched part with the result (a replay
// keeps every step's view at little cost).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: Json;
}

/** A patch that cannot be applied: which operation, and why. */
export class PatchError extends Error {
  constructor(operation: Partial<Operation>, why: string) {
    super(`cannot apply JSON Patch operation ${JSON.stringify(operation.op)} at ${JSON.stringify(operation.path)}: ${why}`);
    this.name = "PatchError";
  }
}

type Container = { [key: string]: Json } | Json[];

function isContainer(value: Json | undefined): value is Container {
  return typeof value === "object" && value !== null;
}

/** The reference tokens of a JSON Pointer (RFC 6901). */
function tokens(operation: Operation, pointer: unknown, name: string): string[] {
  if (typeof pointer !== "string") throw new PatchError(operation, `"${name}" is missing or not a string`);
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new PatchError(operation, `${name} ${JSON.stringify(pointer)} does not start with "/"`);
  return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/** The array position a token names: an index below the length (up to it when adding), or
 * "-" (the end) when adding. */
function arrayIndex(operation: Operation, array: Json[], token: string, adding = false): number {
  if (adding && token === "-") return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(operation, `${JSON.stringify(token)} is not an array index`);
  const index = Number(token);
  if (index > array.length || (index === array.length && !adding)) {
    throw new PatchError(operation, `index ${index} is past the array's end (${array.length})`);
  }
  return index;
}

function child(operation: Operation, node: Json, token: string): Json {
  if (Array.isArray(node)) return node[arrayIndex(operation, node, token)];
  if (isContainer(node)) {
    if (!Object.prototype.hasOwnProperty.call(node, token)) throw new PatchError(operation, `no member ${JSON.stringify(token)}`);
    return node[token];
  }
  throw new PatchError(operation, `${JSON.stringify(token)} names a part of ${JSON.stringify(node)}, neither an object nor an array`);
}

/** Sets an object's member as JSON.parse does (a member named "__proto__" stays a member). */
function setMember(object: { [key: string]: Json }, key: string, value: Json) {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

function get(operation: Operation, document: Json, path: string[]): Json {
  return path.reduce((node, token) => child(operation, node, token), document);
}

/** A copy of `node` in which `change` was made to (a copy of) the container that
 * `path` without its last token names; every other part is shared. */
function edit(operation: Operation, node: Json, path: string[], change: (container: Container, token: string) => void): Json {
  if (!isContainer(node)) {
    throw new PatchError(operation, `${JSON.stringify(path[0])} names a part of ${JSON.stringify(node)}, neither an object nor an array`);
  }
  const copy: Container = Array.isArray(node) ? [...node] : { ...node };
  if (path.length === 1) {
    change(copy, path[0]);
    return copy;
  }
  const [token, ...rest] = path;
  if (Array.isArray(copy)) {
    const index = arrayIndex(operation, copy, token);
    copy[index] = edit(operation, copy[index], rest, change);
  } else {
    setMember(copy, token, edit(operation, child(operation, node, token), rest, change));
  }
  return copy;
}

function add(operation: Operation, document: Json, path: string[], value: Json): Json {
  if (path.length === 0) return value;
  return edit(operation, document, path, (container, token) => {
    if (Array.isArray(container)) container.splice(arrayIndex(operation, container, token, true), 0, value);
    else setMember(container, token, value);
  });
}

function replace(operation: Operation, document: Json, path: string[], value: Json): Json {
  if (path.length === 0) return value;
  return edit(operation, document, path, (container, token) => {
    if (Array.isArray(container)) container[arrayIndex(operation, container, token)] = value;
    else if (Object.prototype.hasOwnProperty.call(container, token)) setMember(container, token, value);
    else throw new PatchError(operation, `no member ${JSON.stringify(token)}`);
  });
}

function remove(operation: Operation, document: Json, path: string[]): Json {
  if (path.length === 0) throw new PatchError(operation, "the whole document cannot be removed");
  return edit(operation, document, path, (container, token) => {
    if (Array.isArray(container)) container.splice(arrayIndex(operation, container, token), 1);
    else if (Object.prototype.hasOwnProperty.call(container, token)) delete container[token];
    else throw new PatchError(operation, `no member ${JSON.stringify(token)}`);
  });
}

function equal(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (!isContainer(a) || !isContainer(b) || Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal((a as Record<string, Json>)[k], (b as Record<string, Json>)[k]));
}

/** `document` with `patch` (add, remove, replace, move, copy, test) applied; `document` itself
 * is unchanged. A patch that does not apply throws a PatchError naming the operation. */
export function applyPatch(document: Json, patch: unknown): Json {
  if (!Array.isArray(patch)) throw new Error("a JSON Patch is a list of operations");
  for (const item of patch as unknown[]) {
    if (!isContainer(item as Json) || Array.isArray(item)) throw new Error(`a JSON Patch operation is an object, not ${JSON.stringify(item)}`);
    const operation = item as Operation;
    const path = tokens(operation, operation.path, "path");
    if (["add", "replace", "test"].includes(operation.op) && !("value" in operation)) {
      throw new PatchError(operation, `"value" is missing`);
    }
    const value = operation.value as Json;
    switch (operation.op) {
      case "add":
        document = add(operation, document, path, value);
        break;
      case "remove":
        document = remove(operation, document, path);
        break;
      case "replace":
        document = replace(operation, document, path, value);
        break;
      case "move":
      case "copy": {
        const from = tokens(operation, operation.from, "from");
        const moved = get(operation, document, from);
        if (operation.op === "move") {
          const inside = from.every((t, i) => path[i] === t);
          if (inside && path.length > from.length) throw new PatchError(operation, "a value cannot move into itself");
          if (from.length > 0) document = remove(operation, document, from);
        }
        document = add(operation, document, path, moved);
        break;
      }
      case "test":
        if (!equal(get(operation, document, path), value)) throw new PatchError(operation, "the test failed");
        break;
      default:
        throw new PatchError(operation, "unknown operation");
    }
  }
  return document;
}
