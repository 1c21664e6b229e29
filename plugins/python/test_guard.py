"""Unit tests of guard.py's policies, the cases of the Rust plugins protect-paths and
keywords: `python3 -m unittest` from plugins/python (plugins/build.sh --test runs them)."""

import unittest

from guard import matches, normalise, relative_path, suggestion

CWD = "/home/dana/proj"


def m(pattern, path):
    return matches(pattern, relative_path(path, CWD))


class ProtectPaths(unittest.TestCase):
    def test_exact_and_file_name(self):
        self.assertTrue(m(".env", ".env"))
        self.assertTrue(m(".env", "./.env"))
        self.assertTrue(m(".env", "deploy/.env"))
        self.assertTrue(m("./.env", ".env"))
        self.assertTrue(m("config/app.toml", "config/app.toml"))
        self.assertFalse(m("config/app.toml", "other/config/app.toml"))
        self.assertFalse(m(".env", ".env.example"))
        self.assertFalse(m(".env", "src/env.rs"))

    def test_folders(self):
        self.assertTrue(m(".git/", ".git"))
        self.assertTrue(m(".git/", ".git/refs/heads/main"))
        self.assertTrue(m(".git/", "vendor/lib/.git/config"))
        self.assertFalse(m(".git/", ".gitignore"))
        self.assertFalse(m(".git/", ".github/workflows/ci.yml"))
        self.assertTrue(m("config/keys/", "config/keys/a.pem"))
        self.assertFalse(m("config/keys/", "other/config/keys/a.pem"))

    def test_globs(self):
        self.assertTrue(m("secrets/*.pem", "secrets/server.pem"))
        self.assertFalse(m("secrets/*.pem", "secrets/deep/server.pem"))
        self.assertFalse(m("secrets/*.pem", "secrets/server.pem.bak"))
        self.assertTrue(m("*.lock", "Cargo.lock"))
        self.assertFalse(m("*.lock", "sub/Cargo.lock"))
        self.assertTrue(m("**/*.key", "a.key"))
        self.assertTrue(m("**/*.key", "x/y/a.key"))
        self.assertTrue(m("secrets/**", "secrets/x/y.txt"))
        self.assertTrue(m("file?.txt", "file1.txt"))
        self.assertFalse(m("file?.txt", "file10.txt"))

    def test_dot_dot_never_hides_a_protected_path(self):
        self.assertEqual(relative_path("/home/dana/proj/../proj/secrets/k.pem", CWD), "secrets/k.pem")
        self.assertEqual(relative_path("../proj/secrets/k.pem", CWD), "secrets/k.pem")
        self.assertEqual(relative_path("src/../../proj/.env", CWD), ".env")
        self.assertEqual(relative_path("/project/../project/.env", CWD), ".env")
        self.assertEqual(relative_path("../other/secrets/k.pem", CWD), "/home/dana/other/secrets/k.pem")
        self.assertEqual(relative_path("../proj/secrets/k.pem", None), "../proj/secrets/k.pem")
        self.assertEqual(relative_path("/home/dana/project2/.env", CWD), "/home/dana/project2/.env")
        self.assertEqual(normalise("../../a/./b/../c"), "../../a/c")


class Keywords(unittest.TestCase):
    def test_seed_with_arguments(self):
        self.assertEqual(
            suggestion("ooo seed my requirements"),
            '<skill-suggestion>The user typed the Ouroboros shortcut "ooo seed". Use the skill '
            "/ouroboros:seed with the arguments: my requirements</skill-suggestion>",
        )

    def test_each_skill(self):
        self.assertIn("/ouroboros:run.", suggestion("ooo run"))
        self.assertIn("/ouroboros:run ", suggestion("ooo execute the plan"))
        self.assertIn("/ouroboros:evaluate", suggestion("ooo eval"))
        self.assertIn("/ouroboros:seed", suggestion("  OOO Seed: x"))
        self.assertIn("arguments: this", suggestion("ooo please seed this"))
        self.assertIsNone(suggestion("ooo nothing here"))
        self.assertIsNone(suggestion("seed it"))


class WithoutCase(unittest.TestCase):
    def test_case(self):
        self.assertTrue(m(".env", ".ENV"))
        self.assertTrue(m("secrets/", "SECRETS/k.pem"))
        self.assertFalse(m(".env", ".ENV.example"))


class ClaudeCodesInput(unittest.TestCase):
    """Claude Code's input (an argv hook behind the bridge, or envelope = "claude-code")
    is read in hookhost's vocabulary by the helper, and judged as the spec's is."""

    def event(self, tool, tool_input):
        import hookhost_hook

        return hookhost_hook.canonical({
            "session_id": "s", "transcript_path": None, "cwd": CWD,
            "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
        })

    def test_names_and_paths(self):
        from guard import protected_write

        patterns = [".env", "secrets/"]
        self.assertIsNotNone(protected_write(self.event("Write", {"file_path": CWD + "/.env"}), patterns))
        self.assertIsNotNone(protected_write(self.event("Edit", {"file_path": CWD + "/secrets/k.pem"}), patterns))
        self.assertIsNone(protected_write(self.event("Write", {"file_path": CWD + "/src/main.rs"}), patterns))
        self.assertIsNone(protected_write(self.event("Read", {"file_path": CWD + "/.env"}), patterns))
        event = self.event("Write", {"file_path": CWD + "/src/../.env"})
        self.assertEqual(event["tool_name"], "write_file")
        self.assertEqual(event["tool_input"], {"path": ".env"})
        self.assertEqual(event["given_tool_name"], "Write")

    def test_mcp_and_spec(self):
        event = self.event("mcp__github__create_issue", {"title": "t"})
        self.assertEqual(event["tool_input"], {"server": "github", "tool": "create_issue", "arguments": {"title": "t"}})
        spec = {"tool_name": "write_file", "tool_input": {"path": ".env"}, "cwd": CWD}
        import hookhost_hook

        self.assertEqual(hookhost_hook.canonical(spec), spec)


if __name__ == "__main__":
    unittest.main()
