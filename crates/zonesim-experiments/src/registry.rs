//! The registry of seed results (`registry/*.toml`, one file per paper): every quantitative
//! result of the five seed papers a simulator could reproduce, each with a stable id
//! (`zufs.fig9c.min-write`), its source (section, figure, the sentence quoted), the paper's
//! value and how it is derived, and either the experiment whose row checks it (the row names
//! the id: [`crate::Row::id`]) or `uncovered` with the cause and the mechanism it needs.
//! The scoreboard ([`crate::scoreboard`]) joins the registry with the verdicts of record.

use crate::row::Cause;
use serde::Deserialize;
use std::collections::BTreeSet;
use std::sync::OnceLock;
use zonesim::error::{Error, Result};

/// The registry files, by paper code (`docs/papers.md`).
const FILES: [(&str, &str); 5] = [
    ("conzone.toml", include_str!("../registry/conzone.toml")),
    ("zufs.toml", include_str!("../registry/zufs.toml")),
    ("zms.toml", include_str!("../registry/zms.toml")),
    ("supgc.toml", include_str!("../registry/supgc.toml")),
    ("mcmq.toml", include_str!("../registry/mcmq.toml")),
];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// The paper's code (`000`...`004`).
    paper: String,
    /// The paper's short name (`ConZone+`).
    name: String,
    /// The id prefix of its results (`conzone`).
    prefix: String,
    #[serde(default)]
    result: Vec<RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    id: String,
    source: String,
    #[serde(default)]
    quote: String,
    reference: Option<f64>,
    #[serde(default)]
    unit: String,
    #[serde(default)]
    derivation: String,
    experiment: Option<String>,
    uncovered: Option<String>,
    #[serde(default)]
    why: String,
}

/// One seed result.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    /// The paper's code (`000`...`004`) and short name.
    pub paper: String,
    pub paper_name: String,
    /// Section and figure or table (`§5.5, Fig. 9(c)`).
    pub source: String,
    /// The sentence of the paper the result is read from.
    pub quote: String,
    /// The paper's value, if it gives a number.
    pub reference: Option<f64>,
    pub unit: String,
    /// How the value is derived from the paper, when it is not read directly.
    pub derivation: String,
    /// The experiment whose row (with this id) checks it.
    pub experiment: Option<String>,
    /// Why no row checks it: the cause class and the mechanism it needs.
    pub uncovered: Option<(Cause, String)>,
}

/// Every result of the registry, checked (ids unique and prefixed by their paper, covered or
/// uncovered with a reason, experiments that exist).
pub fn registry() -> Result<&'static [Entry]> {
    static REG: OnceLock<std::result::Result<Vec<Entry>, String>> = OnceLock::new();
    REG.get_or_init(|| load(&FILES).map_err(|e| e.to_string()))
        .as_deref()
        .map_err(|e| Error::Internal(format!("the registry of seed results is invalid: {e}")))
}

fn load(files: &[(&str, &str)]) -> Result<Vec<Entry>> {
    let names: BTreeSet<&str> = crate::all().iter().map(|e| e.name).collect();
    let mut ids = BTreeSet::new();
    let mut out = Vec::new();
    for (name, text) in files {
        let f: File = toml::from_str(text).map_err(|e| {
            Error::parse(
                format!("registry/{name}"),
                0,
                e.to_string().replace('\n', " "),
            )
        })?;
        for r in f.result {
            let at = |rule: &str| Error::config(format!("registry/{name}: {}", r.id), rule);
            if !r.id.starts_with(&format!("{}.", f.prefix)) {
                return Err(at(&format!("ids of this paper start with '{}.'", f.prefix)));
            }
            if !ids.insert(r.id.clone()) {
                return Err(at("the id is used twice"));
            }
            let uncovered = match (&r.experiment, &r.uncovered) {
                (Some(e), None) if names.contains(e.as_str()) => None,
                (Some(e), None) => return Err(at(&format!("no experiment '{e}'"))),
                (None, Some(c)) => {
                    let cause = Cause::parse(c).ok_or_else(|| at(&format!("cause '{c}'")))?;
                    if r.why.is_empty() {
                        return Err(at("an uncovered result says why (the mechanism it needs)"));
                    }
                    Some((cause, r.why.clone()))
                }
                _ => return Err(at("give exactly one of experiment and uncovered")),
            };
            out.push(Entry {
                id: r.id,
                paper: f.paper.clone(),
                paper_name: f.name.clone(),
                source: r.source,
                quote: r.quote,
                reference: r.reference,
                unit: r.unit,
                derivation: r.derivation,
                experiment: r.experiment,
                uncovered,
            });
        }
    }
    Ok(out)
}

/// What is wrong between an outcome and the registry: a row id the registry does not have, a
/// registry result of this experiment no row checks, an id used by two rows, a row on the
/// scoreboard that is a known gap without a cause.
pub fn check_outcome(o: &crate::Outcome) -> Result<Vec<String>> {
    let reg = registry()?;
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for r in &o.rows {
        let Some(id) = &r.id else { continue };
        match reg.iter().find(|e| &e.id == id) {
            None => problems.push(format!(
                "{}: row '{}' names {id}, which is not in the registry",
                o.name,
                r.key()
            )),
            Some(e) if e.experiment.as_deref() != Some(o.name.as_str()) => problems.push(format!(
                "{}: row names {id}, which the registry gives to {}",
                o.name,
                e.experiment
                    .as_deref()
                    .unwrap_or("no experiment (uncovered)")
            )),
            Some(_) => {}
        }
        if !seen.insert(id.clone()) {
            problems.push(format!("{}: two rows name {id}", o.name));
        }
        if r.known_gap.is_some() && r.cause.is_none() {
            problems.push(format!("{}: {id} is a known gap without a cause", o.name));
        }
    }
    for e in reg
        .iter()
        .filter(|e| e.experiment.as_deref() == Some(o.name.as_str()))
    {
        if !seen.contains(&e.id) {
            problems.push(format!(
                "{}: no row checks {}, which the registry gives to it",
                o.name, e.id
            ));
        }
    }
    Ok(problems)
}

/// The registry entry of `id`.
pub fn entry(id: &str) -> Option<&'static Entry> {
    registry().ok()?.iter().find(|e| e.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_loads() {
        registry().unwrap();
    }

    #[test]
    fn bad_entries_are_refused() {
        let bad = |t: &str| load(&[("t.toml", t)]).unwrap_err().to_string();
        let head = "paper = \"001\"\nname = \"Zoned UFS\"\nprefix = \"zufs\"\n[[result]]\n";
        assert!(bad(&format!(
            "{head}id = \"x.a\"\nsource = \"s\"\nuncovered = \"missing_mechanism\"\nwhy = \"w\"\n"
        ))
        .contains("start with 'zufs.'"));
        assert!(bad(&format!("{head}id = \"zufs.a\"\nsource = \"s\"\n")).contains("exactly one"));
        assert!(bad(&format!(
            "{head}id = \"zufs.a\"\nsource = \"s\"\nexperiment = \"nope\"\n"
        ))
        .contains("no experiment"));
        assert!(bad(&format!(
            "{head}id = \"zufs.a\"\nsource = \"s\"\nuncovered = \"missing_mechanism\"\n"
        ))
        .contains("says why"));
        assert!(bad(&format!(
            "{head}id = \"zufs.a\"\nsource = \"s\"\nuncovered = \"bogus\"\nwhy = \"w\"\n"
        ))
        .contains("cause 'bogus'"));
    }
}
