//! The key tables: every key with its type, default, valid range, unit and doc, grouped by the
//! TOML table it is written in. `zonesim config keys` prints them; the key tables of
//! docs/config.md are its `--markdown` output (generated blocks, compared by a test).

use super::keys::{keys, Key, Shown, Type};
use super::rule::binary_size;
use crate::error::{Error, Result};

/// The keys named by `filters` (a key, or a section and everything under it: `ftl` gives
/// `ftl.gc.idle_us` too), in declaration order; every key when `filters` is empty.
pub fn select(filters: &[String]) -> Result<Vec<Key>> {
    let all = keys();
    for f in filters {
        if !all.iter().any(|k| under(&k.key, f)) {
            return Err(Error::Usage(format!(
                "config keys: no key or section '{f}' (top level: {})",
                top_level(&all).join(", ")
            )));
        }
    }
    Ok(all
        .into_iter()
        .filter(|k| filters.is_empty() || filters.iter().any(|f| under(&k.key, f)))
        .collect())
}

/// `key` is `f` or lies below it.
fn under(key: &str, f: &str) -> bool {
    key.strip_prefix(f)
        .is_some_and(|r| r.is_empty() || r.starts_with('.') || r.starts_with("[]"))
}

/// The top-level names (keys and sections), in declaration order.
fn top_level(keys: &[Key]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for k in keys {
        let name = k.key.split(['.', '[']).next().unwrap_or("");
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// `keys` by table, tables in order of first appearance, keys in declaration order.
fn by_table(keys: &[Key]) -> Vec<(&str, Vec<&Key>)> {
    let mut groups: Vec<(&str, Vec<&Key>)> = Vec::new();
    for k in keys {
        match groups.iter_mut().find(|(t, _)| *t == k.table()) {
            Some((_, ks)) => ks.push(k),
            None => groups.push((k.table(), vec![k])),
        }
    }
    groups
}

/// How a table is written in TOML.
fn header(table: &str) -> String {
    match table {
        "" => "top level".to_string(),
        t => match t.strip_suffix("[]") {
            Some(array) => format!("[[{array}]]"),
            None => format!("[{t}]"),
        },
    }
}

fn type_name(t: &Type, markdown: bool) -> String {
    match t {
        Type::Int => "int".into(),
        Type::Float => "float".into(),
        Type::Bool => "bool".into(),
        Type::Str => "string".into(),
        Type::Table => "table".into(),
        Type::List(t) => format!("list of {}", type_name(t, markdown)),
        Type::Choice(v) if markdown => v
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(" \\| "),
        Type::Choice(v) => v.join("|"),
    }
}

fn default_text(k: &Key, markdown: bool) -> String {
    match &k.default {
        Shown::Required => "required".into(),
        Shown::Unset => "unset".into(),
        Shown::Value(v) => {
            let size = match (k.spec.unit, v.parse::<u64>()) {
                ("bytes", Ok(b)) => binary_size(b).map(|s| format!(" ({s})")),
                _ => None,
            };
            let v = if markdown {
                format!("`{v}`")
            } else {
                v.clone()
            };
            v + &size.unwrap_or_default()
        }
    }
}

/// Markdown: one table per TOML table, each under its header when there are several.
pub fn markdown(keys: &[Key]) -> String {
    let groups = by_table(keys);
    let mut out = String::new();
    for (table, ks) in &groups {
        if groups.len() > 1 {
            let h = header(table);
            let h = if table.is_empty() {
                h
            } else {
                format!("`{h}`")
            };
            out += &format!("**{h}**\n\n");
        }
        out += "| key | type | default | range | unit | meaning |\n";
        out += "|---|---|---|---|---|---|\n";
        for k in ks {
            out += &format!(
                "| `{}` | {} | {} | {} | {} | {} |\n",
                k.key,
                type_name(&k.ty, true),
                default_text(k, true),
                k.spec.compact(),
                k.spec.unit,
                k.doc_line().replace('|', "\\|")
            );
        }
        out += "\n";
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// Plain text: per TOML table, one line per key (name, type, default, range, unit) and its
/// doc indented below.
pub fn plain(keys: &[Key]) -> String {
    let width = keys.iter().map(|k| k.key.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (table, ks) in by_table(keys) {
        out += &format!("{}\n", header(table));
        for k in ks {
            let cols = [
                type_name(&k.ty, false),
                default_text(k, false),
                k.spec.compact(),
                k.spec.unit.to_string(),
            ];
            let cols: Vec<&str> = cols
                .iter()
                .map(String::as_str)
                .filter(|c| !c.is_empty())
                .collect();
            out += &format!("  {:width$}  {}\n", k.key, cols.join("  "));
            out += &format!("      {}\n", k.doc_line());
        }
    }
    out
}
