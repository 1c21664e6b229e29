//! The three keys of a record line the chain reads (`prev`, `torn_prev`, `chain_head`),
//! taken from the line without building it as a `serde_json::Value`.
//!
//! Why: a resume checks the chain over every line it depends on, and building each line
//! as a map (a `session.resumed` names every hook and its banner) was as much of a
//! resumed call's work as parsing those lines for the records themselves (BENCHMARKS.md,
//! twentieth sitting). The line is still parsed whole and must be one `serde_json::Value`
//! would accept: every number, string and escape is read the same way and through the
//! same depth limit, and only the allocations are skipped. So a line the chain calls not
//! JSON is the same line as before, byte for byte.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// The key that makes serde_json read a map as a raw value (its `raw_value` feature,
/// which this crate enables): a map whose first key it is becomes the JSON its value
/// holds. Such a line is read as a `Value`, as before, rather than mimicked here.
const RAW_VALUE_KEY: &str = "$serde_json::private::RawValue";

/// What the chain reads of a line that is a JSON object; each key as its last occurrence
/// holds it, as a `Value` map keeps it.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Links {
    pub(super) prev: Option<Value>,
    pub(super) torn_prev: Option<Value>,
    pub(super) chain_head: Option<Value>,
}

/// The links of `line` when it is a JSON object; `None` when it is not JSON, or JSON of
/// another kind (exactly where `serde_json::from_slice::<Value>` gives an error or no
/// object).
pub(super) fn links_of(line: &[u8]) -> Option<Links> {
    let raw_value = Cell::new(false);
    // As `serde_json::from_slice` reads: the value, then nothing but whitespace.
    let mut deserializer = serde_json::Deserializer::from_slice(line);
    let read = TopLevel {
        raw_value: &raw_value,
    }
    .deserialize(&mut deserializer)
    .and_then(|links| deserializer.end().map(|()| links));
    match read {
        Ok(links) => links,
        Err(_) if raw_value.get() => as_value(line),
        Err(_) => None,
    }
}

/// The links of `line` read through a whole `Value` (the lines with a raw-value key).
fn as_value(line: &[u8]) -> Option<Links> {
    match serde_json::from_slice::<Value>(line) {
        Ok(Value::Object(map)) => Some(Links {
            prev: map.get("prev").cloned(),
            torn_prev: map.get("torn_prev").cloned(),
            chain_head: map.get("chain_head").cloned(),
        }),
        _ => None,
    }
}

/// The line itself: an object gives its links, anything else is checked and `None`.
struct TopLevel<'a> {
    raw_value: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for TopLevel<'_> {
    type Value = Option<Links>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopLevel<'_> {
    type Value = Option<Links>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut links = Links::default();
        each_entry(&mut map, self.raw_value, |key, map| {
            match key {
                Key::Prev => links.prev = Some(map.next_value()?),
                Key::TornPrev => links.torn_prev = Some(map.next_value()?),
                Key::ChainHead => links.chain_head = Some(map.next_value()?),
                Key::RawValue | Key::Other => map.next_value_seed(Checked {
                    raw_value: self.raw_value,
                })?,
            }
            Ok(())
        })?;
        Ok(Some(links))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Checked {
            raw_value: self.raw_value,
        }
        .visit_seq(seq)
        .map(|()| None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// Any JSON value, read as a `Value` would read it, kept nowhere.
struct Checked<'a> {
    raw_value: &'a Cell<bool>,
}

impl<'de> DeserializeSeed<'de> for Checked<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Checked<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        each_entry(&mut map, self.raw_value, |_, map| {
            map.next_value_seed(Checked {
                raw_value: self.raw_value,
            })
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(Checked {
                raw_value: self.raw_value,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
}

/// Calls `value` with each key of `map`, which reads that key's value. A map whose
/// first key is [`RAW_VALUE_KEY`] stops the reading and sets `raw_value`: the line is
/// then read as a `Value`.
fn each_entry<'de, A: MapAccess<'de>>(
    map: &mut A,
    raw_value: &Cell<bool>,
    mut value: impl FnMut(Key, &mut A) -> Result<(), A::Error>,
) -> Result<(), A::Error> {
    let mut first = true;
    while let Some(key) = map.next_key_seed(KeyName)? {
        if first && key == Key::RawValue {
            raw_value.set(true);
            return Err(de::Error::custom("a raw value"));
        }
        first = false;
        value(key, map)?;
    }
    Ok(())
}

/// A map's key, as far as the chain cares.
#[derive(Debug, PartialEq, Eq)]
enum Key {
    Prev,
    TornPrev,
    ChainHead,
    RawValue,
    Other,
}

/// Reads a key the way a `Value` map reads its keys (as a string, escapes undone).
struct KeyName;

impl<'de> DeserializeSeed<'de> for KeyName {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeyName {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Key, E> {
        Ok(match key {
            "prev" => Key::Prev,
            "torn_prev" => Key::TornPrev,
            "chain_head" => Key::ChainHead,
            RAW_VALUE_KEY => Key::RawValue,
            _ => Key::Other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines whose reading could differ from a `Value`'s: each must give the same
    /// links, or none where a `Value` gives an error or no object.
    #[test]
    fn a_lines_links_are_what_its_value_holds() {
        let digest = format!("sha256:{}", "ab".repeat(32));
        let deep = |n: usize| format!("{{\"a\":{}1{}}}", "[".repeat(n), "]".repeat(n));
        let mut lines: Vec<Vec<u8>> = [
            format!(
                r#"{{"prev":"{digest}","type":"effect","x":{{"a":[1,2.5,-3,1e10,null,true]}}}}"#
            ),
            format!(r#"{{"pr\u0065v":"{digest}"}}"#),
            r#"{"prev":"sha256:1","prev":"sha256:2"}"#.into(),
            r#"{"prev":null}"#.into(),
            r#"{"prev":3,"torn_prev":{"a":1}}"#.into(),
            r#"{"chain_head":true,"torn_prev":"sha256:x"}"#.into(),
            r#"{"chain_head":"true"}"#.into(),
            r#"{}"#.into(),
            r#"  {"prev":"p"}  "#.into(),
            r#"{"prev":"p"} x"#.into(),
            r#"{"prev":"p""#.into(),
            r#"{"a":1e400,"prev":"p"}"#.into(),
            r#"{"a":18446744073709551616,"prev":"p"}"#.into(),
            r#"{"a":"\ud800","prev":"p"}"#.into(),
            r#"{"a":"\q","prev":"p"}"#.into(),
            r#"{"a":"tab	inside","prev":"p"}"#.into(),
            "[1,2,3]".into(),
            r#""text""#.into(),
            "12".into(),
            "null".into(),
            "".into(),
            format!(r#"{{"$serde_json::private::RawValue":"{{\"prev\":\"{digest}\"}}"}}"#),
            r#"{"$serde_json::private::RawValue":"[1]"}"#.into(),
            r#"{"$serde_json::private::RawValue":"{bad"}"#.into(),
            r#"{"$serde_json::private::RawValue":"1","a":2}"#.into(),
            r#"{"prev":"p","x":{"$serde_json::private::RawValue":"{\"a\":1}"}}"#.into(),
            r#"{"prev":"p","x":{"$serde_json::private::RawValue":"{bad"}}"#.into(),
            r#"{"prev":"p","x":{"a":1,"$serde_json::private::RawValue":"{bad"}}"#.into(),
            r#"{"\u0024serde_json::private::RawValue":"{\"prev\":\"q\"}"}"#.into(),
            deep(120),
            deep(126),
            deep(127),
            deep(128),
            deep(200),
        ]
        .into_iter()
        .map(String::into_bytes)
        .collect();
        lines.push(b"{\"prev\":\"p\",\"a\":\"\xff\"}".to_vec());
        lines.push(b"{\"prev\":\"\xc3\xa9\"}".to_vec());
        lines.push(b"{\"\xff\":1}".to_vec());
        for line in &lines {
            assert_eq!(
                links_of(line),
                as_value(line),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
        // The cases above reach both sides of each question.
        let objects = lines.iter().filter(|l| as_value(l).is_some()).count();
        assert!(objects > 10 && objects < lines.len() - 10, "{objects}");
    }
}
