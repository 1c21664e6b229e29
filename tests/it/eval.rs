//! `hookhost eval` end to end: a cases file against real hooks through the real binary.

use crate::support::{Scene, hook, run, sh_hook};

fn scene() -> Scene {
    let scene = Scene::new();
    let policy = scene.script(
        "policy.sh",
        r#"input=$(cat)
case "$input" in
  *"--force"*) echo "force-push is not allowed here" >&2; exit 2 ;;
esac
exit 0"#,
    );
    let keywords = scene.script(
        "keywords.sh",
        r#"input=$(cat)
case "$input" in
  *'"prompt":"ooo seed'*) echo "consider /ouroboros:seed" ;;
  *forbidden*) echo "not that" >&2; exit 2 ;;
esac
exit 0"#,
    );
    let flaky = scene.script("flaky.sh", "exit 1");
    scene.write_config(&format!(
        "{}{}{}",
        sh_hook("no-force-push", &policy, "tools = [\"bash\"]"),
        sh_hook(
            "flaky",
            &flaky,
            "tools = [\"write_file\"]\non_failure = \"continue\""
        ),
        hook(
            "keywords",
            "UserPromptSubmit",
            &["/bin/sh", keywords.to_str().unwrap()],
            ""
        ),
    ));
    scene
}

fn eval(scene: &Scene, cases: &str) -> (i32, String, String) {
    let path = scene.root.path().join("cases.toml");
    std::fs::write(&path, cases).unwrap();
    run(scene.hookhost().arg("--no-sandbox").arg("eval").arg(&path))
}

const PASSING: &str = r#"
[[case]]
name = "status"
tool = "bash"
input = { command = "git status" }
expect.outcome.in = ["completed"]

[[case]]
name = "force"
tool = "bash"
input = { command = "git push --force origin main" }
expect.outcome.in = ["blocked"]
expect.message.contains = "force-push is not allowed"

[[case]]
name = "seed"
prompt = "ooo seed my requirements"
expect.outcome.in = ["completed"]
expect.context.contains = "/ouroboros:seed"

[[case]]
name = "forbidden prompt"
prompt = "something forbidden"
expect.outcome.in = ["prompt_blocked"]

[[case]]
name = "a failing advisory hook lets writes through"
tool = "write_file"
input = { path = "a.txt", content = "" }
expect.outcome.in = ["completed", "blocked"]
"#;

#[test]
fn all_passing_cases_exit_0_with_the_summary_line() {
    let scene = scene();
    let (code, stdout, stderr) = eval(&scene, PASSING);
    assert_eq!(
        stdout,
        "pass status\npass force\npass seed\npass forbidden prompt\npass a failing advisory hook lets writes through\n5 passed, 0 failed\n",
        "stderr: {stderr}"
    );
    assert_eq!(code, 0);
    // The banner and the failing hook's warning go to stderr, not into the report.
    assert!(stderr.contains("hooks: no-force-push"), "{stderr}");
    assert!(
        stderr.contains("⚠ hook flaky failed (exited with code 1)"),
        "{stderr}"
    );
}

#[test]
fn failing_cases_say_what_differed_and_exit_1() {
    let scene = scene();
    let (code, stdout, stderr) = eval(
        &scene,
        r#"
[[case]]
name = "force expected through"
tool = "bash"
input = { command = "git push --force" }
expect.outcome.in = ["completed"]

[[case]]
name = "status"
tool = "bash"
input = { command = "git status" }
expect.outcome.in = ["completed"]

[[case]]
name = "wrong message"
tool = "bash"
input = { command = "git push --force" }
expect.outcome.in = ["blocked"]
expect.message.contains = "rebase"

[[case]]
name = "no context"
prompt = "fix the test"
expect.outcome.in = ["completed"]
expect.context.contains = "/ouroboros:seed"

[[case]]
name = "prompt blocked"
prompt = "forbidden words"
expect.outcome.in = ["completed"]
"#,
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "FAIL force expected through: outcome blocked, expected one of [completed] (blocked by the user's hook \"no-force-push\": force-push is not allowed here)",
            "pass status",
            "FAIL wrong message: message does not contain \"rebase\" (message: \"blocked by the user's hook \\\"no-force-push\\\": force-push is not allowed here\")",
            "FAIL no context: context does not contain \"/ouroboros:seed\" (there is no context)",
            "FAIL prompt blocked: outcome prompt_blocked, expected one of [completed] (✗ prompt blocked by hook \"keywords\": not that)",
            "1 passed, 4 failed",
        ],
        "stderr: {stderr}"
    );
    assert_eq!(code, 1);
}

#[test]
fn a_malformed_cases_file_exits_2_naming_the_file_the_case_and_the_key() {
    let scene = scene();
    let (code, stdout, stderr) = eval(
        &scene,
        r#"
[[case]]
name = "typo"
tool = "bash"
input = { command = "ls" }
expect.outcome.in = ["completed"]
expected = "oops"

[[case]]
name = "neither"
expect.outcome.in = ["completed"]
"#,
    );
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    let path = scene.root.path().join("cases.toml");
    let path = path.display();
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            format!(
                "{path}: case typo: unknown key \"expected\" (a case has name, prompt or tool and input, and expect)"
            ),
            format!(
                "{path}: case neither: the case runs nothing: give prompt = \"…\", or tool = \"…\" with input = {{ … }}"
            ),
        ]
    );

    let (code, _, stderr) = eval(&scene, "[[case]\nname = 1\n");
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cases.toml: malformed TOML at line 1"),
        "{stderr}"
    );

    let (code, _, stderr) = eval(
        &scene,
        "[[case]]\nname = \"x\"\nprompt = \"p\"\nexpect.outcome.in = [\"finished\"]\n",
    );
    assert_eq!(code, 2);
    assert!(
        stderr.contains("case x: expect.outcome.in: \"finished\" is not an outcome"),
        "{stderr}"
    );
}

#[test]
fn a_session_that_cannot_start_exits_2() {
    let scene = scene();
    std::fs::write(&scene.config, "[[hooks]]\nname = \"x\"\n").unwrap();
    let (code, stdout, stderr) = eval(&scene, PASSING);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert!(stderr.contains("event is missing"), "{stderr}");
}

#[test]
fn each_case_is_its_own_turn() {
    let scene = scene();
    let case = "[[case]]\nname = \"NAME\"\ntool = \"write_file\"\ninput = { path = \"a\" }\nexpect.outcome.in = [\"completed\"]\n";
    let cases = format!(
        "{}{}",
        case.replace("NAME", "one"),
        case.replace("NAME", "two")
    );
    let (code, _, stderr) = eval(&scene, &cases);
    assert_eq!(code, 0);
    assert_eq!(
        stderr.matches("⚠ hook flaky failed").count(),
        2,
        "one warning per case: {stderr}"
    );
}
