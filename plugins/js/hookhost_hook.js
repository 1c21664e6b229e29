// hookhost_hook.js: the small helper a JavaScript hook needs. Copy it beside your hook.
//
// A hook built with componentize-js against hookhost's wit/hook.wit:
//
//   import * as hook from "./hookhost_hook.js";
//
//   function judge(event) {
//     if (event.tool_name === "bash" && (event.tool_input?.command ?? "").includes("rm -rf /"))
//       return hook.block("not on this machine");
//     return hook.allow();
//   }
//
//   export const run = hook.component(judge);   // the wasi:cli/run export
//
// A judge takes the event (the one line of JSON hookhost sends on stdin) and returns
// allow(), block(reason) or addContext(text). The answer is JSON on stdout and exit
// status 0, so it never depends on exit code 2. A judge that throws is a hook failure
// (exit status 1, the error on stderr); the hook's on_failure decides what follows.
//
// The event is always in hookhost's vocabulary (canonical): a hook run with Claude Code's
// input (envelope = "claude-code") reads bash, write_file and a project-relative
// tool_input.path exactly as one run with the spec's envelope does.

import { getArguments } from "wasi:cli/environment@0.2.12";
import { getStdin } from "wasi:cli/stdin@0.2.12";
import { getStdout } from "wasi:cli/stdout@0.2.12";
import { getStderr } from "wasi:cli/stderr@0.2.12";

// Claude Code's tool names -> hookhost's (hookhost's src/call.rs, HOOKHOST_NAMES;
// docs/envelopes.md). Every mcp__server__tool is mcp.
export const HOOKHOST_NAMES = {
  Bash: "bash",
  PowerShell: "bash",
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  NotebookEdit: "edit_file",
  apply_patch: "edit_file",
  Glob: "glob",
  Grep: "search",
  Agent: "agent",
  Task: "agent",
  Skill: "skill",
  Monitor: "bash",
};
const FILE_TOOLS = ["read_file", "write_file", "edit_file"];

/**
 * The event in hookhost's vocabulary, whichever shape it came in: Claude Code's tool
 * names become hookhost's (Bash -> bash, Write -> write_file, mcp__s__t -> mcp with
 * {server, tool, arguments}), a file tool's file_path becomes path, made relative to the
 * event's cwd when it lies inside it. The given name is kept as given_tool_name when it
 * changed. A spec envelope is returned as it is.
 */
export function canonical(event) {
  const tool = event.tool_name;
  if (typeof tool !== "string") return event;
  const name = tool.startsWith("mcp__") ? "mcp" : Object.hasOwn(HOOKHOST_NAMES, tool) ? HOOKHOST_NAMES[tool] : null;
  if (name === null) return event;
  const out = { ...event, tool_name: name, given_tool_name: tool };
  const input = event.tool_input;
  if (name === "mcp") {
    const rest = tool.slice("mcp__".length);
    const cut = rest.indexOf("__");
    out.tool_input = {
      server: cut < 0 ? rest : rest.slice(0, cut),
      tool: cut < 0 ? "" : rest.slice(cut + 2),
      arguments: input,
    };
  } else if (FILE_TOOLS.includes(name) && input !== null && typeof input === "object" && !("path" in input)) {
    const copy = { ...input };
    if (typeof copy.file_path === "string") {
      copy.path = relativeTo(copy.file_path, event.cwd);
      delete copy.file_path;
    }
    out.tool_input = copy;
  }
  return out;
}

function lexical(path) {
  const segments = [];
  for (const segment of path.split("/")) {
    if (segment === "..") segments.pop();
    else if (segment !== "" && segment !== ".") segments.push(segment);
  }
  return "/" + segments.join("/");
}

/** An absolute path relative to cwd when it lies below it (.. resolved first). */
function relativeTo(path, cwd) {
  if (typeof cwd !== "string" || !cwd.startsWith("/") || !path.startsWith("/")) return path;
  const full = lexical(path);
  const root = lexical(cwd);
  if (root !== "/" && full.startsWith(root + "/")) return full.slice(root.length + 1);
  return path;
}

/** No objection: the call goes on (an empty stdout). */
export function allow() {
  return { payload: null };
}

/** Blocks the tool call (PreToolUse) or the prompt (UserPromptSubmit). */
export function block(reason) {
  return { payload: { decision: "block", reason: String(reason) } };
}

/** Adds `text` beside the user's prompt (UserPromptSubmit only). */
export function addContext(text, event = "UserPromptSubmit") {
  return { payload: { hookSpecificOutput: { hookEventName: event, additionalContext: String(text) } } };
}

/** The hook's arguments: its command[1..] in hookhost's config. */
export function args() {
  return getArguments().slice(1);
}

function readStdin() {
  const input = getStdin();
  const chunks = [];
  let size = 0;
  for (;;) {
    let chunk;
    try {
      chunk = input.blockingRead(65536n);
    } catch (error) {
      if (error?.payload?.tag === "closed" || error?.tag === "closed") break;
      throw error;
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.length;
  }
  return new TextDecoder().decode(all);
}

function write(stream, text) {
  const bytes = new TextEncoder().encode(text);
  // blockingWriteAndFlush takes at most 4096 bytes at a time.
  for (let at = 0; at < bytes.length; at += 4096) {
    stream.blockingWriteAndFlush(bytes.subarray(at, at + 4096));
  }
}

/** The event hookhost sent: one line of JSON on stdin, as an object. */
export function readEvent() {
  const line = readStdin().split("\n", 1)[0];
  let event;
  try {
    event = JSON.parse(line);
  } catch (error) {
    throw new Error(`stdin is not a JSON hook event: ${error.message}`);
  }
  if (event === null || typeof event !== "object" || Array.isArray(event)) {
    throw new Error("stdin is not a JSON hook event: not an object");
  }
  return canonical(event);
}

/** The wasi:cli/run export for `judge`. */
export function component(judge) {
  return {
    run() {
      let answer;
      try {
        answer = judge(readEvent());
        if (!answer || !("payload" in answer)) {
          throw new Error(`the judge returned ${JSON.stringify(answer)}, not allow(), block() or addContext()`);
        }
      } catch (error) {
        write(getStderr(), `${error?.message ?? error}\n`);
        throw error; // run returns err: exit status 1, a hook failure
      }
      if (answer.payload !== null) write(getStdout(), JSON.stringify(answer.payload) + "\n");
    },
  };
}
