//! Every config key is declared once (`config/declare.rs`), and everything about it comes from
//! that declaration. Here: (a) the keys the presets and a config with every optional key set
//! serialise to are exactly the declared keys; (b) the key tables of the docs are the output of
//! `zonesim config keys --markdown` (refresh them with `scripts/refresh-config-keys`); (c) a
//! value just outside each declared range is rejected with a one-line error naming the key;
//! (d) a bad `fs` key fails before preconditioning.

use std::collections::BTreeSet;
use zonesim::config::keys::{keys, Key, Type};
use zonesim::config::rule::{Rule, Step};
use zonesim::config::{apply_set, preset_text, table, DeviceConfig, PRESETS};
use zonesim::sim::{Control, Precondition, RunOptions};

/// The dotted leaf keys of `v` (array elements that are tables as `name[]`; empty arrays are
/// not keys).
fn leaves(v: &toml::Value, prefix: &str, out: &mut BTreeSet<String>) {
    let join = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        toml::Value::Table(t) => t.iter().for_each(|(k, x)| leaves(x, &join(k), out)),
        toml::Value::Array(a) if a.is_empty() => {}
        toml::Value::Array(a) if a.iter().all(toml::Value::is_table) => a
            .iter()
            .for_each(|x| leaves(x, &format!("{prefix}[]"), out)),
        _ => {
            out.insert(prefix.to_string());
        }
    }
}

fn serialised_keys(cfg: &DeviceConfig, out: &mut BTreeSet<String>) {
    leaves(&toml::Value::try_from(cfg).unwrap(), "", out);
}

/// A valid-typed TOML literal for a key (its value need not obey cross-key rules).
fn sample(ty: &Type, rule: Rule) -> String {
    match (ty, rule) {
        (Type::Int, Rule::Int { min, max, step, .. }) => match step {
            Step::Multiple(m) => min.max(m).to_string(),
            // Above the minimum when there is room: a count whose default is its minimum
            // (`ftl.cost.cores = 1`) is left out of the serialised config while default.
            _ if min >= 1 && max > min => (min + 1).to_string(),
            _ => min.max(1).to_string(),
        },
        (Type::Int, _) => "1".into(),
        (Type::Float, Rule::Float { min, max, .. }) => format!("{:?}", (min + max) / 2.0),
        (Type::Float, _) => "1.0".into(),
        (Type::Bool, _) => "true".into(),
        (Type::Str, _) => "\"x\"".into(),
        (Type::Choice(v), _) => format!("\"{}\"", v[0]),
        (Type::List(t), _) => format!("[{}]", sample(t, rule)),
        (Type::Table, _) => unreachable!("a table is not a key"),
    }
}

/// The table of preset `name`.
fn preset_table(name: &str) -> toml::Table {
    preset_text(name).unwrap().parse().unwrap()
}

/// Set `key` to the TOML literal `v` in `t` as `--set` does; an element key of a list of
/// tables (`namespaces[].zones`) is set on the list's first element.
fn set_key(t: &mut toml::Table, key: &str, v: &str) -> zonesim::Result<()> {
    match key.split_once("[].") {
        None => apply_set(t, &format!("{key}={v}")),
        Some((list, rest)) => {
            let first = t[list].as_array_mut().unwrap()[0].as_table_mut().unwrap();
            apply_set(first, &format!("{rest}={v}"))
        }
    }
}

/// A preset with namespaces, with every declared key it leaves out set.
const FULL_PRESET: &str = "conzone-paper";

/// `second`: a choice key takes its second choice, so a choice whose first is its default
/// (kept out of the serialised config while default, `power.clock_gating = "off"`) is seen.
fn everything_set(absent: &[&Key], second: bool) -> DeviceConfig {
    let mut t = preset_table(FULL_PRESET);
    for k in absent.iter().filter(|k| k.key != "base") {
        let v = match &k.ty {
            Type::Choice(v) if second && v.len() > 1 => format!("\"{}\"", v[1]),
            ty => sample(ty, k.spec.rule),
        };
        set_key(&mut t, &k.key, &v).unwrap();
    }
    toml::Value::Table(t).try_into().unwrap()
}

/// (a) A field without a declaration or a declaration without a field fails here.
#[test]
fn the_serialised_keys_are_the_declared_keys() {
    let declared: Vec<Key> = keys();
    let names: BTreeSet<String> = declared.iter().map(|k| k.key.clone()).collect();
    let mut seen = BTreeSet::new();
    serialised_keys(&DeviceConfig::default_device(), &mut seen);
    for (name, _, _) in PRESETS {
        serialised_keys(&DeviceConfig::load(name, &[]).unwrap(), &mut seen);
    }
    let absent: Vec<&Key> = declared.iter().filter(|k| !seen.contains(&k.key)).collect();
    serialised_keys(&everything_set(&absent, false), &mut seen);
    let still: Vec<&Key> = absent
        .iter()
        .copied()
        .filter(|k| !seen.contains(&k.key))
        .collect();
    serialised_keys(&everything_set(&still, true), &mut seen);
    // `base` is read from files only and never written back.
    seen.insert("base".into());
    let undeclared: Vec<&String> = seen.difference(&names).collect();
    let missing: Vec<&String> = names.difference(&seen).collect();
    assert!(
        undeclared.is_empty(),
        "keys without a declaration: {undeclared:?}"
    );
    assert!(
        missing.is_empty(),
        "declarations without a key: {missing:?}"
    );
}

/// Every declared key has a doc line, and every numeric key a rule.
#[test]
fn every_key_has_a_doc_and_every_number_a_rule() {
    for k in keys() {
        assert!(!k.doc_line().is_empty(), "{}: no doc", k.key);
        let element = match &k.ty {
            Type::List(t) => (**t).clone(),
            t => t.clone(),
        };
        let fits = match (element, k.spec.rule) {
            (Type::Int, Rule::Int { .. }) | (Type::Float, Rule::Float { .. }) => true,
            (Type::Int | Type::Float, _) | (_, Rule::Int { .. } | Rule::Float { .. }) => false,
            (_, Rule::Free) => true,
        };
        assert!(fits, "{}: {:?} with rule {:?}", k.key, k.ty, k.spec.rule);
    }
}

/// The generated blocks `<!-- generated: config keys ARGS -->` of README.md and docs/*.md.
fn config_blocks() -> Vec<(String, String, String)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let mut files = vec![format!("{root}/README.md")];
    for e in std::fs::read_dir(format!("{root}/docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            files.push(p.to_string_lossy().into_owned());
        }
    }
    files.sort();
    let mut blocks = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut lines = text.lines();
        while let Some(l) = lines.next() {
            let Some(args) = l
                .strip_prefix("<!-- generated: config keys")
                .and_then(|r| r.strip_suffix("-->"))
            else {
                continue;
            };
            let body: Vec<&str> = lines
                .by_ref()
                .take_while(|l| *l != "<!-- end generated -->")
                .collect();
            blocks.push((f.clone(), args.trim().to_string(), body.join("\n") + "\n"));
        }
    }
    blocks
}

/// (b) Each block is the command's output, and every key is in exactly one block.
#[test]
fn docs_key_tables_are_the_generated_ones() {
    let mut documented: Vec<String> = Vec::new();
    for (file, args, body) in config_blocks() {
        let args: Vec<String> = args.split_whitespace().map(String::from).collect();
        let keys = table::select(&args).unwrap();
        let want = format!(
            "command: `zonesim config keys --markdown {}`\n\n{}",
            args.join(" "),
            table::markdown(&keys)
        );
        assert!(
            body == want,
            "{file}: block 'config keys {}' is stale: run scripts/refresh-config-keys",
            args.join(" ")
        );
        documented.extend(keys.into_iter().map(|k| k.key));
    }
    let mut once = BTreeSet::new();
    for k in &documented {
        assert!(once.insert(k.clone()), "{k} is documented in two blocks");
    }
    for k in keys() {
        assert!(once.contains(&k.key), "{} is in no docs table", k.key);
    }
}

/// Load the preset with namespaces with `key` set to the literal `v` (through a file: `--set`
/// cannot address a list's element).
fn load_with(key: &str, v: &str) -> zonesim::Result<DeviceConfig> {
    let mut t = preset_table(FULL_PRESET);
    set_key(&mut t, key, v)?;
    let dir = std::env::temp_dir().join(format!("zonesim-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{}.toml", key.replace(['[', ']', '.'], "_")));
    std::fs::write(&file, toml::to_string(&t).unwrap()).unwrap();
    DeviceConfig::load(file.to_str().unwrap(), &[])
}

/// Values just outside a rule (TOML literals), each a whole value of the key's type.
fn outside(rule: Rule, ty: &Type) -> Vec<String> {
    let mut v = Vec::new();
    match rule {
        Rule::Int {
            min,
            max,
            step,
            zero,
        } => {
            if min > 0 && !(zero && min == 1) {
                v.push((min - 1).to_string());
            }
            if max < i64::MAX as u64 && (max < u32::MAX as u64 || *ty != Type::Int) {
                v.push((max + 1).to_string());
            }
            if step != Step::Any && min >= 2 {
                v.push((min + 1).to_string());
            }
        }
        Rule::Float {
            min,
            max,
            open_min,
            open_max,
            ..
        } => {
            v.push(format!(
                "{:?}",
                if open_min { min } else { min.next_down() }
            ));
            v.push(format!("{:?}", if open_max { max } else { max.next_up() }));
        }
        Rule::Free => {}
    }
    v
}

/// The literal of a whole key holding `x` (lists: `x` first, valid values after).
fn whole(k: &Key, x: &str) -> String {
    match (&k.ty, k.key.as_str()) {
        (Type::List(_), "host.wrr_weights") => format!("[{x}, 1, 1]"),
        (Type::List(_), _) => format!("[{x}]"),
        _ => x.to_string(),
    }
}

/// How the error names the key holding `x`.
fn named(k: &Key) -> String {
    let key = k.key.replace("[].", "[0].");
    match &k.ty {
        Type::List(_) if !key.ends_with("_by_page") => format!("{key}[0]"),
        _ => key,
    }
}

/// (c) Just outside each declared range: a one-line config error (exit 2) naming the key.
#[test]
fn a_value_just_outside_each_range_is_rejected() {
    let mut tried = 0;
    for k in keys() {
        for x in outside(k.spec.rule, &k.ty) {
            let e = load_with(&k.key, &whole(&k, &x))
                .map(|_| ())
                .expect_err(&format!("{}={x} accepted", k.key));
            let msg = e.to_string();
            assert!(matches!(e, zonesim::Error::Config { .. }), "{msg}");
            assert!(
                msg.starts_with(&format!("config: {}: must be", named(&k))),
                "{}={x}: {msg}",
                k.key
            );
            assert!(!msg.contains('\n'), "{msg}");
            tried += 1;
        }
    }
    assert!(tried > 150, "only {tried} values tried");
}

/// (d) An `fs` rule that needs the device fails before preconditioning starts: a bad
/// namespace at load time, an impossible mkfs reserve before the device is written.
#[test]
fn bad_fs_keys_fail_before_preconditioning() {
    let sets = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let e = zonesim::load_device("conzone-paper", &sets(&["fs.meta_namespace=1"])).unwrap_err();
    assert!(
        e.to_string().starts_with("config: fs.meta_namespace:"),
        "{e}"
    );
    let e = zonesim::load_device("zufs-2026", &sets(&["fs.main_namespace=2"])).unwrap_err();
    assert!(
        e.to_string().starts_with("config: fs.main_namespace:"),
        "{e}"
    );
    let cfg = zonesim::load_device(
        "ufs-conventional",
        &sets(&["fs.reserved_segments=100000000"]),
    )
    .unwrap();
    let wl = zonesim::WorkloadSpec::Jobs(
        zonesim::host::fio::parse_job_file("[j]\nrw=randread\nsize=1m\n", "j.fio").unwrap(),
    );
    let opts = RunOptions {
        precondition: Precondition::Steady,
        ..RunOptions::default()
    };
    let mut calls = 0;
    let mut progress = |_: &zonesim::Tick| calls += 1;
    let mut ctl = Control {
        progress: Some(&mut progress),
        stop: None,
        finish: None,
    };
    let spec = zonesim::RunSpec::new(cfg, wl).options(opts);
    let e = zonesim::run(&spec, &mut ctl).unwrap_err();
    assert!(
        e.to_string().starts_with("config: fs.reserved_segments:"),
        "{e}"
    );
    assert_eq!(calls, 0, "preconditioning ran before the error");
}
