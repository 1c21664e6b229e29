// probe: a test fixture for JavaScript components (built by plugins/build.sh into
// target/wasm/probe-js.wasm). Its first argument picks what it does:
// - `exit-with-code N`: calls wasi:cli/exit.exit-with-code(N), which delivers N;
// - `throw`: throws from run, which is exit status 1 (run returns err);
// - `fetch URL`: fetch(URL), prints `fetched <status>` or `ERR: <error>`;
// - `read PATH`: not available to JavaScript components' standard library; omitted.

import { getArguments } from "wasi:cli/environment@0.2.12";
import { exitWithCode } from "wasi:cli/exit@0.2.12";
import { getStdout } from "wasi:cli/stdout@0.2.12";
import { getStderr } from "wasi:cli/stderr@0.2.12";

function say(stream, text) {
  stream.blockingWriteAndFlush(new TextEncoder().encode(text + "\n"));
}

export const run = {
  async run() {
    const [mode, arg] = getArguments().slice(1);
    if (mode === "exit-with-code") {
      say(getStderr(), "reason from js");
      exitWithCode(Number(arg));
    }
    if (mode === "throw") throw new Error("thrown by the probe");
    if (mode === "fetch") {
      try {
        const response = await fetch(arg);
        say(getStdout(), `fetched ${response.status}`);
      } catch (error) {
        say(getStdout(), `ERR: ${error}`);
      }
      return;
    }
    say(getStderr(), `probe: unknown mode ${mode}`);
    throw new Error("unknown mode");
  },
};
