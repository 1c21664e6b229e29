// guard: the policies of the Rust plugins protect-paths and keywords, in JavaScript.
//
// Built into a WASM component by plugins/build.sh (componentize-js against wit/hook.wit).
// - PreToolUse: for write_file and edit_file, blocks a write to a path matching one of
//   the hook's arguments (.env .git/ secrets/*.pem), with protect-paths' rules.
// - UserPromptSubmit: for a prompt "ooo <skill word> …" adds a skill suggestion, as the
//   keywords plugin does.

import * as hook from "./hookhost_hook.js";

const WRITE_TOOLS = ["write_file", "edit_file"];
const SKILLS = { seed: "seed", run: "run", execute: "run", evaluate: "evaluate", eval: "evaluate", interview: "interview" };

function judge(event) {
  if (event.hook_event_name === "PreToolUse") {
    const reason = protectedWrite(event, hook.args());
    return reason ? hook.block(reason) : hook.allow();
  }
  if (event.hook_event_name === "UserPromptSubmit") {
    const context = suggestion(event.prompt);
    return context ? hook.addContext(context) : hook.allow();
  }
  return hook.allow();
}

// PreToolUse: protect-paths

export function protectedWrite(event, patterns) {
  const tool = event.tool_name;
  const input = event.tool_input;
  if (!WRITE_TOOLS.includes(tool) || input === null || typeof input !== "object") return null;
  const cwd = typeof event.cwd === "string" ? event.cwd : null;
  for (const key of ["path", "file_path"]) {
    const raw = input[key];
    if (typeof raw !== "string") continue;
    const path = relativePath(raw, cwd);
    for (const pattern of patterns) {
      if (matches(pattern, path)) {
        return `${tool} on ${raw} is not allowed: the path is protected (pattern ${pattern})`;
      }
    }
  }
  return null;
}

export function normalise(path) {
  const absolute = path.startsWith("/");
  const segments = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length && segments[segments.length - 1] !== "..") segments.pop();
      else if (!absolute) segments.push("..");
      continue;
    }
    segments.push(segment);
  }
  let out = (absolute ? "/" : "") + segments.join("/");
  if (path.endsWith("/") && segments.length) out += "/";
  return out;
}

export function relativePath(raw, cwd) {
  if (cwd !== null && cwd.startsWith("/")) {
    cwd = normalise(cwd);
    if (cwd.length > 1) cwd = cwd.replace(/\/+$/, "");
  } else {
    cwd = null;
  }
  let path = normalise(raw);
  if (cwd !== null && (path === ".." || path.startsWith("../"))) path = normalise(`${cwd}/${path}`);
  if (!path.startsWith("/")) return path;
  for (const root of [...(cwd ? [cwd] : []), "/project"]) {
    if (root === "/") continue; // a project of / would make every path "in the project"
    if (path === root || path.startsWith(root + "/")) return path.slice(root.length).replace(/^\/+/, "");
  }
  return path;
}

export function matches(rawPattern, rawPath) {
  // Without case, as macOS and Windows compare paths (stricter on Linux, never looser).
  const pattern = normalise(rawPattern.toLowerCase());
  if (!pattern || !rawPath) return false;
  const path = rawPath.toLowerCase().replace(/\/+$/, "");
  if (pattern.endsWith("/")) {
    const folder = pattern.slice(0, -1);
    if (path === folder || path.startsWith(folder + "/")) return true;
    return !folder.includes("/") && path.split("/").includes(folder);
  }
  if (pattern.includes("*") || pattern.includes("?")) return glob(pattern, path);
  return path === pattern || path.split("/").pop() === pattern;
}

function glob(pattern, text) {
  if (!pattern) return !text;
  const head = pattern[0];
  let rest = pattern.slice(1);
  if (head === "*") {
    if (rest.startsWith("*")) {
      rest = rest.slice(1);
      if (rest.startsWith("/") && glob(rest.slice(1), text)) return true;
      for (let i = 0; i <= text.length; i++) if (glob(rest, text.slice(i))) return true;
      return false;
    }
    for (let i = 0; i <= text.length; i++) {
      if (glob(rest, text.slice(i))) return true;
      if (i < text.length && text[i] === "/") break;
    }
    return false;
  }
  if (!text) return false;
  if (head === "?") return text[0] !== "/" && glob(rest, text.slice(1));
  return text[0] === head && glob(rest, text.slice(1));
}

// UserPromptSubmit: keywords

export function suggestion(prompt) {
  if (typeof prompt !== "string") return null;
  const words = prompt.trim().split(/\s+/);
  if (words.length < 2 || words[0].toLowerCase() !== "ooo") return null;
  let remaining = prompt.trim().slice(words[0].length).trimStart();
  while (remaining) {
    const match = /^(\S+)\s*([\s\S]*)$/.exec(remaining);
    const [word, after] = [match[1], match[2]];
    const key = trimNonAlphanumeric(word).toLowerCase();
    if (Object.hasOwn(SKILLS, key)) {
      const skill = SKILLS[key];
      const args = after.trim();
      let text = `<skill-suggestion>The user typed the Ouroboros shortcut "ooo ${key}". Use the skill /ouroboros:${skill}`;
      text += args ? ` with the arguments: ${args}` : ".";
      return text + "</skill-suggestion>";
    }
    remaining = after.trimStart();
  }
  return null;
}

// A letter (it has case) or an ASCII digit: the engine has no Unicode property classes.
function isAlphanumeric(c) {
  return c.toLowerCase() !== c.toUpperCase() || (c >= "0" && c <= "9");
}

function trimNonAlphanumeric(word) {
  const chars = [...word];
  let start = 0;
  let end = chars.length;
  while (start < end && !isAlphanumeric(chars[start])) start++;
  while (end > start && !isAlphanumeric(chars[end - 1])) end--;
  return chars.slice(start, end).join("");
}

export const run = hook.component(judge);
