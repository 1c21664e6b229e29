//! The built-in rules and the user's policy together, on the reviews' variables and a
//! table of real-world ones.

use super::*;

fn secret(name: &str, value: &str) -> bool {
    is_secret(name.as_bytes(), value.as_bytes())
}

#[test]
fn the_reviews_variables_are_all_secret() {
    for k in [
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "NPM_TOKEN",
        "HUGGING_FACE_HUB_TOKEN",
        "SLACK_BOT_TOKEN",
        "API_KEY",
        "OPENAI_KEY",
        "ANTHROPIC_KEY",
        "COHERE_API_KEY_V2",
        "OPENAI_API_KEY_OLD",
    ] {
        assert!(secret(k, "x"), "{k}");
    }
    assert!(secret("DATABASE_URL", "postgres://app:hunter2@db:5432/app"));
}

#[test]
fn keys_by_pattern_ignoring_case() {
    for k in [
        "ANTHROPIC_API_KEY",
        "openai_api_key",
        "MY_SERVICE_API_KEY",
        "GITHUB_AUTH_TOKEN",
        "X_SECRET_KEY",
        "OTEL_EXPORTER_OTLP_HEADERS",
        "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
        "ANTHROPIC_CUSTOM_HEADERS",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_ACCESS_KEY_ID",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "PGPASSWORD",
        "MYSQL_PASSWD",
        "GITHUB_PAT",
        "API_KEYS_DIR",
    ] {
        assert!(secret(k, "x"), "{k}");
    }
    for k in [
        "HOME",
        "PATH",
        "TERM",
        "PATTERN",
        "KEYMAP",
        "KEYTIMEOUT",
        "TOKENIZERS_PARALLELISM",
        "SSH_AUTH_SOCK",
    ] {
        assert!(!secret(k, "x"), "{k}");
    }
    // The price of patterns: a harmless name with KEY in it goes too (keep_env it).
    assert!(secret("MONKEYPATCH", "x"));
}

#[test]
fn urls_only_when_they_carry_a_password() {
    assert!(secret("DATABASE_URL", "postgres://u:p@h/db"));
    assert!(secret("redis_url", "redis://:p@h:6379"));
    assert!(secret(
        "MONGO_URI",
        "mongodb+srv://u:p@cluster/x?retryWrites=true"
    ));
    assert!(secret("SENTRY_DSN", "https://k:s@o1.ingest.sentry.io/2"));
    assert!(!secret("DATABASE_URL", "postgres://u@h/db"));
    assert!(!secret("DATABASE_URL", "postgres:///db?host=/run/pg"));
    assert!(!secret("HOMEPAGE_URL", "https://example.com/a:b@c"));
    // A DSN without a scheme holds a password only under a name that can hold one.
    assert!(secret("PAGER_URL_STYLE", "u:p@h"));
    assert!(!secret("PAGER_STYLE", "u:p@h"));
    // An empty password is none.
    assert!(!secret("DATABASE_URL", "postgres://u:@h/db"));
    // Any name, and every URL in the value.
    assert!(secret("CACHE", "postgres://u:p@h/db"));
    assert!(secret(
        "PIP_EXTRA_INDEX_URLS",
        "https://pypi.org/simple https://u:p@corp/simple"
    ));
}

/// Security review N14: real-world names and values, withheld (`true`) or kept.
const TABLE: &[(&str, &str, bool)] = &[
    // What the review found reaching hooks.
    ("MYSQL_PWD", "hunter2", true),
    ("DB_PASS", "hunter2", true),
    ("SMTP_PASS", "hunter2", true),
    ("REDIS_PASS", "hunter2", true),
    ("PASS", "hunter2", true),
    ("GPG_PASSPHRASE", "correct horse", true),
    ("SSH_PASSPHRASE", "correct horse", true),
    ("HTTP_PROXY", "http://user:proxypass@proxy:3128", true),
    ("https_proxy", "http://user:proxypass@proxy:3128", true),
    ("ALL_PROXY", "socks5://user:proxypass@proxy:1080", true),
    ("https_proxy", "user:proxypass@proxy:3128", true),
    ("NPM_CONFIG__AUTH", "dXNlcjpwYXNz", true),
    ("npm_config__auth", "dXNlcjpwYXNz", true),
    (
        "DOCKER_AUTH_CONFIG",
        "{\"auths\":{\"r.io\":{\"auth\":\"dXNlcjpwYXNz\"}}}",
        true,
    ),
    ("CI_JOB_JWT", "x", true),
    ("CI_JOB_JWT_V2", "x", true),
    ("BW_SESSION", "Ksu+Aq1Zk3TQf0m8w2Q==", true),
    ("OP_SESSION_my", "x", true),
    (
        "AZURE_STORAGE_CONNECTION_STRING",
        "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=k==;EndpointSuffix=core.windows.net",
        true,
    ),
    (
        "ConnectionStrings__Default",
        "Server=db;Database=app;User Id=u;Password=cspw;",
        true,
    ),
    ("BASIC_AUTH", "user:pass", true),
    ("AUTH", "user:pass", true),
    ("COOKIE", "session=abc", true),
    ("HTTP_COOKIE", "sid=abc", true),
    ("HTTP_AUTHORIZATION", "Basic dXNlcjpwYXNz", true),
    ("DATABASE_URL", "postgres://db/app?password=qspw", true),
    (
        "JDBC_URL",
        "jdbc:mysql://db:3306/app?user=u&password=jdbcpw",
        true,
    ),
    ("MYSQL_DSN", "root:dsnpw@tcp(127.0.0.1:3306)/app", true),
    (
        "MYSQL_DSN",
        "app:dsnpw@unix(/run/mysqld/mysqld.sock)/app",
        true,
    ),
    ("DATABASE_URL_RO", "postgres://ro:ropass@db/app", true),
    (
        "GIT_REMOTE_URL",
        "https://ghp_R4nd0mT0k3nV4lu3xxxxxxxxxxxxxxxxxx@github.com/o/r.git",
        true,
    ),
    (
        "SENTRY_DSN",
        "https://0f1e2d3c4b5a69788796a5b4c3d2e1f0@o1.ingest.sentry.io/2",
        true,
    ),
    ("PGOPTIONS", "host=db user=u password=lp", true),
    ("ODBC_STRING", "Driver={x};Server=db;UID=u;PWD=op;", true),
    (
        "BLOB_SAS_URL",
        "https://a.blob.core.windows.net/c?sv=2022-11-02&sr=c&sig=AbC%2F123",
        true,
    ),
    ("WEBHOOK", "https://hooks.example.com/in?token=a1b2c3", true),
    (
        "ID_TOKEN_COPY",
        "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
        true,
    ),
    (
        "EXTRA_HEADER",
        "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkYW5hIiwiaWF0IjoxfQ.sig",
        true,
    ),
    ("MY_GH", "ghp_0123456789abcdefghijABCDEFGHIJ012345", true),
    ("DEPLOY_ID", "AKIAIOSFODNN7EXAMPLE", true),
    ("CLAUDE", "sk-ant-api03-AbCdEf0123456789xyz", true),
    // Already withheld by name before: *_TOKEN, *_KEY, *PASSWORD*.
    ("GITHUB_TOKEN", "ghp_x", true),
    ("OPENAI_API_KEY", "sk-x", true),
    ("PGPASSWORD", "x", true),
    // Kept: the everyday environment.
    ("PATH", "/usr/local/bin:/usr/bin:/bin", false),
    ("HOME", "/home/dana", false),
    ("LANG", "en_US.UTF-8", false),
    ("LANG", "de_DE.UTF-8@euro", false),
    ("LANGUAGE", "sr_RS:sr@latin", false),
    ("LC_ALL", "C.UTF-8", false),
    ("TERM", "xterm-256color", false),
    ("SHELL", "/bin/bash", false),
    ("USER", "dana", false),
    ("PWD", "/home/dana/proj", false),
    ("OLDPWD", "/home/dana", false),
    ("EDITOR", "vim", false),
    ("http_proxy", "http://proxy:3128", false),
    ("HTTPS_PROXY", "http://proxy.corp:8080/", false),
    ("no_proxy", "localhost,127.0.0.1,.corp", false),
    ("PASSWORD_STORE_DIR", "/home/dana/.password-store", false),
    ("PGPASSFILE", "/home/dana/.pgpass", false),
    ("DB_PASS_FILE", "/run/secrets/db_pass", false),
    ("GIT_AUTHOR_NAME", "Dana Scully", false),
    ("GIT_AUTHOR_EMAIL", "dana@example.com", false),
    ("GIT_COMMITTER_NAME", "Dana Scully", false),
    ("GIT_ASKPASS", "/usr/lib/git-core/git-gui--askpass", false),
    ("SSH_AUTH_SOCK", "/run/user/1000/ssh-agent.socket", false),
    ("DESKTOP_SESSION", "ubuntu", false),
    ("XDG_SESSION_TYPE", "wayland", false),
    ("JWT_ALGORITHM", "RS256", false),
    (
        "XAUTHORITY",
        "/run/user/1000/.mutter-Xwaylandauth.X1",
        false,
    ),
    (
        "GIT_COMMIT",
        "3f1c2a9be0d54c7a8e6f1b2c3d4e5f60718293a4",
        false,
    ),
    ("DATABASE_URL", "postgres://app@db:5432/app", false),
    ("REPO_URL", "ssh://git@github.com/o/r.git", false),
    ("GIT_REMOTE", "git@github.com:o/r.git", false),
    ("DOCKER_IMAGE_URL", "nginx:1.25@sha256:0a1b2c3d", false),
    (
        "PS1",
        "${debian_chroot:+($debian_chroot)}\\u@\\h:\\w\\$ ",
        false,
    ),
    (
        "LS_COLORS",
        "rs=0:di=01;34:ln=01;36:*.key=00;33:*.pem=00;33:",
        false,
    ),
    ("JAVA_TOOL_OPTIONS", "-Dfile.encoding=UTF-8 -Xmx2g", false),
    ("GREP_COLORS", "ms=01;31:mc=01;31:sl=:cx=:fn=35", false),
    ("LESS", "-R", false),
    ("MAKEFLAGS", "-j8", false),
    ("PAGER", "less", false),
    ("KEYMAP", "us", false),
    ("HOMEPAGE_URL", "https://example.com/a:b@c", false),
    (
        "QUERY",
        "https://example.com/search?q=password&page=2",
        false,
    ),
    (
        "LOGIN_FORM_URL",
        "https://example.com/?password=&x=1",
        false,
    ),
];

#[test]
fn the_table_of_real_world_variables() {
    assert!(TABLE.len() >= 40);
    let wrong: Vec<String> = TABLE
        .iter()
        .filter(|(k, v, withheld)| secret(k, v) != *withheld)
        .map(|(k, v, withheld)| {
            format!(
                "{k}={v}: {}",
                if *withheld {
                    "reaches hooks"
                } else {
                    "withheld"
                }
            )
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn keep_env_brings_any_of_them_back() {
    for (k, v, _) in TABLE {
        let policy = EnvPolicy {
            keep: vec![k.to_string()],
            remove: vec![],
        };
        assert!(!policy.withholds(OsStr::new(k), OsStr::new(v)), "{k}");
    }
}

#[test]
fn keep_wins_and_remove_adds() {
    let policy = EnvPolicy {
        keep: vec!["GITHUB_TOKEN".into()],
        remove: vec![
            EnvPattern::parse("corp_*").unwrap(),
            EnvPattern::parse("VAULT_ADDR").unwrap(),
        ],
    };
    let w = |k: &str| policy.withholds(OsStr::new(k), OsStr::new("v"));
    assert!(!w("GITHUB_TOKEN"));
    assert!(w("github_token"), "keep_env is exact, case included");
    assert!(w("CORP_THING"));
    assert!(w("VAULT_ADDR"));
    assert!(!w("HOME"));
    let all = EnvPolicy {
        keep: vec!["HOME".into()],
        remove: vec![EnvPattern::parse("*").unwrap()],
    };
    assert!(!all.withholds(OsStr::new("HOME"), OsStr::new("/h")));
    assert!(all.withholds(OsStr::new("LANG"), OsStr::new("C")));
}

#[test]
fn non_utf8_names_are_matched_on_their_bytes() {
    let name = crate::platform::sys::file_system::os_str_from_bytes(b"MY_\xffTOKEN");
    assert!(EnvPolicy::default().withholds(name, OsStr::new("v")));
}

/// The variables that choose what code a hook's programs load are withheld, whatever
/// their value, unless `keep_env` names them; the ones that only look alike pass.
#[test]
fn variables_that_load_code_are_withheld_unless_kept() {
    let none = EnvPolicy::default();
    let withheld = |policy: &EnvPolicy, k: &str| policy.withholds(OsStr::new(k), OsStr::new("/p"));
    for k in [
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "DYLD_INSERT_LIBRARIES",
        "BASH_ENV",
        "BASH_FUNC_cat%%",
        "ZDOTDIR",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONUSERBASE",
        "PERL5OPT",
        "PERL5LIB",
        "RUBYOPT",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_KEY_0",
        "GIT_EXEC_PATH",
        "GCONV_PATH",
        "OPENSSL_CONF",
        "npm_config_registry",
        "npm_config_node-options",
        "PYTHONPYCACHEPREFIX",
        "NODE_REPL_EXTERNAL_MODULE",
        "UV_PYTHON",
        "GIT_SSH_COMMAND",
        "LUA_INIT_5_4",
    ] {
        assert!(withheld(&none, k), "{k}");
    }
    for k in [
        "PATH_INFO",
        "NODE_ENV",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "GIT_AUTHOR_NAME",
        "BASH",
        "ENV",
    ] {
        assert!(!withheld(&none, k), "{k}");
    }
    let kept = EnvPolicy {
        keep: vec!["PYTHONPATH".into()],
        remove: vec![],
    };
    assert!(!withheld(&kept, "PYTHONPATH"));
    assert!(withheld(&kept, "NODE_OPTIONS"));
}
