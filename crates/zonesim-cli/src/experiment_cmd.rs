//! `zonesim experiment list | run NAME|all | rederive RECORD | scoreboard`.
//!
//! Exit status: 0 when every checked row passes or is a declared known gap, 1 when a row
//! fails (outside its band, or a declared gap whose row now passes) or, with
//! `--check-record`, when a row's verdict differs from its paper-scale record without being
//! marked scale-dependent or a sensitivity row is in only one of them; 2 on bad input.
//!
//! Experiments, and the independent runs inside each, share `--jobs` threads (default: every
//! core; `zonesim_experiments::par_map`); each simulation stays on one thread, so the output is
//! the same for any `--jobs`, printed in listing order.

use anyhow::Result;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;
use zonesim::Error;
use zonesim_experiments::scoreboard::{self, Recorded};
use zonesim_experiments::{self as experiments, ExpOptions, Experiment, Outcome, Scale};

#[derive(clap::Subcommand)]
pub enum ExperimentCmd {
    /// List the reproductions.
    List,
    /// Run one reproduction (or `all`) and print ours beside the reference.
    #[command(allow_negative_numbers = true)]
    Run {
        /// An experiment name, several joined by commas, or `all` (more than one: a verdict
        /// line each, then their wall times on stderr).
        name: String,
        /// Also write the outcome as JSON to this file (`all`: an array).
        #[arg(long)]
        json: Option<PathBuf>,
        /// Seed of the experiment's runs (the snapshots and records use 1).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// quick (a smoke test of the same structure), full (the default) or paper (the
        /// paper's own device, fill and duration: the form of record).
        #[arg(long, value_parser = parse_scale)]
        scale: Option<Scale>,
        /// Same as `--scale quick`.
        #[arg(long, conflicts_with = "scale")]
        quick: bool,
        /// Print the table as markdown (docs are pasted from this).
        #[arg(long)]
        markdown: bool,
        /// Experiments run at once (independent simulations; results as if one by one).
        /// Default: the machine's cores.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
        /// Write each outcome, with its scale, seed and wall time, to DIR/NAME.json (the
        /// records the scoreboard reads), and for `all` the scoreboard of DIR to
        /// DIR/scoreboard.md.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Fail when a row's verdict differs from its paper-scale record and the row is not
        /// marked scale-dependent, or when rows and the registry of seed results disagree.
        #[arg(long)]
        check_record: bool,
    },
    /// Judge a record's measurements again with the current rows, without simulating again
    /// (supgc-fio, whose paper-scale run takes hours): prints the outcome; `--out DIR` writes
    /// DIR/NAME.json with the record's scale, seed and wall time and `rows_rederived` set.
    Rederive {
        /// The record (a `NAME.json` written by `experiment run --out`).
        record: PathBuf,
        /// Write the re-judged record to DIR/NAME.json.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print the table as markdown.
        #[arg(long)]
        markdown: bool,
    },
    /// Every seed result with its status at the paper's scale, per paper and in total.
    Scoreboard {
        /// The scoreboard as JSON: {"results": [...], "totals": {...}}.
        #[arg(long)]
        json: bool,
        /// The totals and the per-result table as markdown (docs/experiments.md).
        #[arg(long)]
        markdown: bool,
        /// Only the totals per paper, as markdown (README.md).
        #[arg(long, conflicts_with_all = ["json", "markdown"])]
        totals: bool,
        /// Read the records of DIR instead of those built into the binary.
        #[arg(long)]
        from: Option<PathBuf>,
        /// Re-run every experiment at the paper's scale first (slow: hours), writing the
        /// records to `--from` (default results/paper).
        #[arg(long)]
        run: bool,
        /// Experiments run at a time with --run (default: one per core).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
        jobs: Option<u32>,
        /// Seed of the --run runs.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

fn parse_scale(s: &str) -> std::result::Result<Scale, String> {
    s.parse()
}

/// What `run` asks for.
struct RunAsk {
    name: String,
    opts: ExpOptions,
    jobs: Option<u32>,
}

pub fn run(cmd: ExperimentCmd) -> Result<()> {
    match cmd {
        ExperimentCmd::List => {
            for e in experiments::all() {
                println!("{:<26} {}", e.name, e.title);
            }
            Ok(())
        }
        ExperimentCmd::Run {
            name,
            json,
            seed,
            scale,
            quick,
            markdown,
            jobs,
            out,
            check_record,
        } => {
            let scale = if quick {
                Scale::Quick
            } else {
                scale.unwrap_or(Scale::Full)
            };
            let ask = RunAsk {
                name,
                opts: ExpOptions { seed, scale },
                jobs,
            };
            run_cmd(&ask, json, markdown, out, check_record)
        }
        ExperimentCmd::Rederive {
            record,
            out,
            markdown,
        } => rederive_cmd(&record, out, markdown),
        ExperimentCmd::Scoreboard {
            json,
            markdown,
            totals,
            from,
            run,
            jobs,
            seed,
        } => {
            let form = match (json, markdown, totals) {
                (true, _, _) => Form::Json,
                (_, true, _) => Form::Markdown,
                (_, _, true) => Form::Totals,
                _ => Form::Text,
            };
            scoreboard_cmd(form, from, run, jobs, seed)
        }
    }
}

/// The experiments `name` names: `all`, or names joined by commas.
fn chosen(name: &str) -> Result<Vec<Experiment>> {
    if name == "all" {
        return Ok(experiments::all());
    }
    Ok(name
        .split(',')
        .map(experiments::find)
        .collect::<std::result::Result<_, _>>()?)
}

/// Run the chosen experiments (in parallel up to `jobs`), each with its wall time, in order.
fn run_all(ask: &RunAsk) -> Result<Vec<(Outcome, f64)>> {
    let list = chosen(&ask.name)?;
    experiments::set_jobs(ask.jobs.map_or(0, |j| j as usize));
    let opts = ask.opts;
    let results = experiments::par_map(&list, |e| {
        let t = Instant::now();
        (e.run)(&opts).map(|o| (o, t.elapsed().as_secs_f64()))
    });
    results.into_iter().map(|r| r.map_err(Into::into)).collect()
}

fn run_cmd(
    ask: &RunAsk,
    json: Option<PathBuf>,
    markdown: bool,
    out: Option<PathBuf>,
    check_record: bool,
) -> Result<()> {
    let t = Instant::now();
    let outs = run_all(ask)?;
    let total_s = t.elapsed().as_secs_f64();
    let several = outs.len() > 1;
    for (o, _) in &outs {
        if several && !markdown {
            println!("{}", o.verdict_line());
        } else if markdown {
            println!("{}", experiments::render_markdown(o));
        } else {
            print!("{}", experiments::render(o));
        }
    }
    if let Some(p) = json {
        let text = if outs.len() == 1 {
            serde_json::to_string_pretty(&outs[0].0)?
        } else {
            serde_json::to_string_pretty(&outs.iter().map(|o| &o.0).collect::<Vec<_>>())?
        };
        std::fs::write(&p, text + "\n").map_err(|e| Error::io(&p, e))?;
    }
    if let Some(dir) = &out {
        write_records(dir, &outs, ask.opts)?;
        if ask.name == "all" {
            let sb = scoreboard::score(&scoreboard::from_dir(dir)?)?;
            let md = scoreboard_markdown(&sb);
            let p = dir.join("scoreboard.md");
            std::fs::write(&p, md).map_err(|e| Error::io(&p, e))?;
        }
    }
    if several {
        // The wall-time summary (stderr: stdout stays the verdicts).
        let each: Vec<String> = outs
            .iter()
            .map(|(o, s)| format!("{} {s:.1} s", o.name))
            .collect();
        eprintln!(
            "wall time ({} scale, {} experiments, --jobs {}): {}; total {total_s:.1} s",
            ask.opts.scale,
            outs.len(),
            experiments::jobs(),
            each.join(", ")
        );
    }
    let mut failed = outs.iter().any(|(o, _)| o.failures() > 0);
    if check_record {
        failed |= check_against_record(&outs)?;
    }
    if failed {
        std::io::stdout().flush().ok();
        std::process::exit(1);
    }
    Ok(())
}

fn rederive_cmd(record: &Path, out: Option<PathBuf>, markdown: bool) -> Result<()> {
    let rec = scoreboard::read(record)?;
    let o = experiments::rederive(&rec, &record.display().to_string())?;
    if markdown {
        println!("{}", experiments::render_markdown(&o));
    } else {
        print!("{}", experiments::render(&o));
    }
    if let Some(dir) = out {
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let p = dir.join(format!("{}.json", o.name));
        let text = Recorded::rederived_text(&o, &rec);
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
    }
    if o.failures() > 0 {
        std::io::stdout().flush().ok();
        std::process::exit(1);
    }
    Ok(())
}

fn write_records(dir: &Path, outs: &[(Outcome, f64)], opts: ExpOptions) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    for (o, wall_s) in outs {
        let text = Recorded::text(o, opts.scale, opts.seed, *wall_s);
        let p = dir.join(format!("{}.json", o.name));
        std::fs::write(&p, text).map_err(|e| Error::io(&p, e))?;
    }
    Ok(())
}

/// Print every disagreement between the outcomes and the registry (row ids, results no row
/// checks) and every row whose verdict differs from the record at the paper's scale without
/// a scale-dependent mark, and every sensitivity row that only one of them has; whether there
/// was one.
fn check_against_record(outs: &[(Outcome, f64)]) -> Result<bool> {
    let records = scoreboard::embedded()?;
    let mut any = false;
    for (o, _) in outs {
        for p in experiments::registry::check_outcome(o)? {
            eprintln!("{p}");
            any = true;
        }
        let Some(rec) = records.get(&o.name) else {
            continue;
        };
        for (exp, key, here, paper) in scoreboard::scale_mismatches(o, rec) {
            eprintln!("{exp}: {key}: {here} here, {paper} at the paper's scale (not marked scale-dependent)");
            any = true;
        }
        for (exp, key, side) in scoreboard::sensitivity_drift(o, rec) {
            eprintln!("{exp}: sensitivity row '{key}' only in {side} (this run and the record at the paper's scale must have the same sensitivity rows)");
            any = true;
        }
    }
    Ok(any)
}

/// The scoreboard's markdown: the totals, then every result.
fn scoreboard_markdown(sb: &scoreboard::Scoreboard) -> String {
    format!(
        "{}\n{}",
        scoreboard::totals_markdown(sb),
        scoreboard::results_markdown(sb)
    )
}

/// How the scoreboard prints.
#[derive(Clone, Copy)]
enum Form {
    Text,
    Json,
    Markdown,
    Totals,
}

fn scoreboard_cmd(
    form: Form,
    from: Option<PathBuf>,
    run: bool,
    jobs: Option<u32>,
    seed: u64,
) -> Result<()> {
    if run {
        let dir = from
            .clone()
            .unwrap_or_else(|| PathBuf::from("results/paper"));
        let ask = RunAsk {
            name: "all".into(),
            opts: ExpOptions {
                seed,
                scale: Scale::Paper,
            },
            jobs,
        };
        let outs = run_all(&ask)?;
        write_records(&dir, &outs, ask.opts)?;
        return scoreboard_cmd(form, Some(dir), false, jobs, seed);
    }
    let records = match &from {
        Some(d) => scoreboard::from_dir(d)?,
        None => scoreboard::embedded()?,
    };
    let sb = scoreboard::score(&records)?;
    match form {
        Form::Json => println!("{}", serde_json::to_string_pretty(&sb)?),
        Form::Markdown => print!("{}", scoreboard_markdown(&sb)),
        Form::Totals => print!("{}", scoreboard::totals_markdown(&sb)),
        Form::Text => print!("{}", scoreboard::totals_text(&sb)),
    }
    Ok(())
}
