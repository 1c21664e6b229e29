//! Shell words: quoting the registered command line, and reading the first words of a
//! handler's command line to recognise hookhost's own.

/// `word` quoted for a POSIX shell: as it is when it holds only characters no shell treats
/// specially, else in single quotes.
pub(super) fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_-./+,:@%=".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// The first `count` words of a shell command line, unquoted (single quotes, double quotes
/// with backslash escapes, backslashes outside quotes). Enough to tell which program a line
/// runs with which first argument; not a full shell parser.
pub(super) fn first_words(line: &str, count: usize) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                    if words.len() == count {
                        return words;
                    }
                }
            }
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(escaped) = chars.next() {
                                word.push(escaped);
                            }
                        }
                        q => word.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(escaped) = chars.next() {
                    word.push(escaped);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word && words.len() < count {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_round_trips_through_first_words() {
        for path in [
            "/usr/local/bin/hookhost",
            "/home/a b/bin/hookhost",
            "/tmp/it's/hookhost",
            "/tmp/$HOME/\"x\"/hookhost",
        ] {
            let line = format!("{} bridge --agent codex", quote(path));
            assert_eq!(
                first_words(&line, 2),
                vec![path.to_string(), "bridge".into()]
            );
        }
        assert_eq!(quote("/usr/bin/hookhost"), "/usr/bin/hookhost");
        assert_eq!(quote("a b"), "'a b'");
    }

    #[test]
    fn first_words_reads_double_quotes_and_backslashes() {
        assert_eq!(
            first_words(r#""/a b/hookhost"  bridge x"#, 2),
            vec!["/a b/hookhost".to_string(), "bridge".into()]
        );
        assert_eq!(
            first_words(r"/a\ b/hookhost", 2),
            vec!["/a b/hookhost".to_string()]
        );
        assert!(first_words("   ", 2).is_empty());
    }
}
