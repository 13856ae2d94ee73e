//! The valid values of a numeric key ([`Spec`]: a [`Rule`] and a unit), declared beside the
//! key's type and default, and the two ways they are said: in an error (`must be in
//! 1..=1024 (got 0)`) and in the key tables (`1..=1024`, `[0.001, 1e9]`, `0 or ≥ 4 KiB`).

use crate::error::{Error, Result};

/// How the multiples of an integer key are restricted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step {
    Any,
    Multiple(u64),
    PowerOfTwo,
}

/// The valid values of a key, checked before anything simulates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// Every value the type can hold (flags, names, choices, tables).
    Free,
    /// An integer in `min..=max` (`max = u64::MAX`: no upper bound); `zero`: 0 is also valid
    /// (it switches the feature off).
    Int {
        min: u64,
        max: u64,
        step: Step,
        zero: bool,
    },
    /// A finite number between `min` and `max`, each bound open or closed.
    Float {
        min: f64,
        max: f64,
        open_min: bool,
        open_max: bool,
        zero: bool,
    },
}

/// A key's rule and unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spec {
    pub rule: Rule,
    pub unit: &'static str,
}

/// Any value (flags, names, choices, tables).
pub const fn free() -> Spec {
    Spec {
        rule: Rule::Free,
        unit: "",
    }
}

/// An integer in `min..=max`.
pub const fn int(min: u64, max: u64) -> Spec {
    Spec {
        rule: Rule::Int {
            min,
            max,
            step: Step::Any,
            zero: false,
        },
        unit: "",
    }
}

/// An integer of at least `min`, no upper bound declared.
pub const fn at_least(min: u64) -> Spec {
    int(min, u64::MAX)
}

/// A number in `[min, max]`.
pub const fn float(min: f64, max: f64) -> Spec {
    Spec {
        rule: Rule::Float {
            min,
            max,
            open_min: false,
            open_max: false,
            zero: false,
        },
        unit: "",
    }
}

impl Spec {
    pub const fn unit(mut self, unit: &'static str) -> Spec {
        self.unit = unit;
        self
    }
    /// Integers: a multiple of `step`.
    pub const fn multiple_of(mut self, m: u64) -> Spec {
        if let Rule::Int { ref mut step, .. } = self.rule {
            *step = Step::Multiple(m);
        }
        self
    }
    /// Integers: a power of two.
    pub const fn power_of_two(mut self) -> Spec {
        if let Rule::Int { ref mut step, .. } = self.rule {
            *step = Step::PowerOfTwo;
        }
        self
    }
    /// 0 is valid too (off).
    pub const fn or_zero(mut self) -> Spec {
        match self.rule {
            Rule::Int { ref mut zero, .. } | Rule::Float { ref mut zero, .. } => *zero = true,
            Rule::Free => {}
        }
        self
    }
    /// Floats: the lower bound itself is not valid (`(min, max]`).
    pub const fn open_min(mut self) -> Spec {
        if let Rule::Float {
            ref mut open_min, ..
        } = self.rule
        {
            *open_min = true;
        }
        self
    }
    /// Floats: the upper bound itself is not valid (`[min, max)`).
    pub const fn open_max(mut self) -> Spec {
        if let Rule::Float {
            ref mut open_max, ..
        } = self.rule
        {
            *open_max = true;
        }
        self
    }
}

/// A number as read from a key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Num {
    Int(u64),
    Float(f64),
}

impl Spec {
    /// Whether `v` obeys the rule.
    pub fn admits(&self, v: Num) -> bool {
        match (self.rule, v) {
            (Rule::Free, _) => true,
            (
                Rule::Int {
                    min,
                    max,
                    step,
                    zero,
                },
                Num::Int(v),
            ) => {
                let stepped = match step {
                    Step::Any => true,
                    Step::Multiple(m) => v.is_multiple_of(m),
                    Step::PowerOfTwo => v.is_power_of_two(),
                };
                (zero && v == 0) || (stepped && v >= min && v <= max)
            }
            (
                Rule::Float {
                    min,
                    max,
                    open_min,
                    open_max,
                    zero,
                },
                Num::Float(v),
            ) => {
                let lo = if open_min { v > min } else { v >= min };
                let hi = if open_max { v < max } else { v <= max };
                (zero && v == 0.0) || (v.is_finite() && lo && hi)
            }
            // An integer key read as a float or the other way: a declaration bug, caught by
            // the table-driven test of every key.
            _ => false,
        }
    }

    /// The one-line error of `key` holding `v`, or nothing when `v` is valid.
    pub fn check(&self, key: &str, v: Num) -> Result<()> {
        if self.admits(v) {
            return Ok(());
        }
        let got = match v {
            Num::Int(i) => i.to_string(),
            Num::Float(f) => fmt_f64(f),
        };
        Err(Error::config(
            key,
            format!("must be {} (got {got})", self.phrase()),
        ))
    }

    /// The rule as the error messages say it, after "must be": `in 1..=1024`, `at least 1`,
    /// `a multiple of 4 KiB in 0..=1 TiB`, `0 or in [0.001, 1e6]`.
    pub fn phrase(&self) -> String {
        self.render(&PHRASE)
    }

    /// The rule as the key tables show it: `1..=1024`, `≥ 1`, `[0.001, 1e9]`, `(0, 4]`,
    /// `0 or ≥ 4 KiB`, `multiple of 4 KiB, ≤ 1 TiB`.
    pub fn compact(&self) -> String {
        self.render(&COMPACT)
    }

    /// The rule in the words of `w`.
    fn render(&self, w: &Words) -> String {
        let (body, zero) = match self.rule {
            Rule::Free => return String::new(),
            Rule::Int {
                min,
                max,
                step,
                zero,
            } => {
                let span = match (min, max) {
                    (0, u64::MAX) => String::new(),
                    (m, u64::MAX) => format!("{}{}", w.at_least, self.int(m)),
                    (0, m) if w.at_most.is_some() && step != Step::Any => {
                        format!("{}{}", w.at_most.unwrap_or_default(), self.int(m))
                    }
                    (a, b) => format!("{}{}..={}", w.range, self.int(a), self.int(b)),
                };
                let kind = match step {
                    Step::Any => String::new(),
                    Step::Multiple(m) => format!("{}{}", w.multiple, self.int(m)),
                    Step::PowerOfTwo => w.power_of_two.to_string(),
                };
                let body = match (kind.is_empty(), span.is_empty()) {
                    (true, true) => format!("{}0", w.at_least),
                    (true, false) => span,
                    (false, true) => kind,
                    (false, false) => format!("{kind}{}{span}", w.join),
                };
                (body, zero)
            }
            Rule::Float { zero, .. } => (format!("{}{}", w.range, self.compact_float()), zero),
        };
        if zero {
            format!("0 or {body}")
        } else {
            body
        }
    }

    fn compact_float(&self) -> String {
        match self.rule {
            Rule::Float {
                min,
                max,
                open_min,
                open_max,
                ..
            } => format!(
                "{}{}, {}{}",
                if open_min { "(" } else { "[" },
                fmt_f64(min),
                fmt_f64(max),
                if open_max { ")" } else { "]" }
            ),
            _ => String::new(),
        }
    }

    /// An integer bound: byte sizes that are whole KiB, MiB, ... read as such.
    fn int(&self, v: u64) -> String {
        if self.unit == "bytes" {
            if let Some(b) = binary_size(v) {
                return b;
            }
        }
        v.to_string()
    }
}

/// `v` as `N KiB` / `MiB` / `GiB` / `TiB` when it is a whole number of one (at least 1 KiB).
pub fn binary_size(v: u64) -> Option<String> {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    UNITS
        .iter()
        .find(|(_, s)| v >= 1 << s && v.is_multiple_of(1 << s))
        .map(|(u, s)| format!("{} {u}", v >> s))
}

/// A float as short as it reads: `0.001`, `937.5`, `150000`, `1e7`, `1e-300`.
pub fn fmt_f64(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 {
        "0".to_string()
    } else if a.is_finite() && !(1e-4..1e6).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// The words a rule is rendered in: an error message's or a key table's.
struct Words {
    at_least: &'static str,
    /// An upper bound alone (a multiple below a maximum), when the style has one.
    at_most: Option<&'static str>,
    range: &'static str,
    multiple: &'static str,
    power_of_two: &'static str,
    join: &'static str,
}

/// After "must be" in an error message.
const PHRASE: Words = Words {
    at_least: "at least ",
    at_most: None,
    range: "in ",
    multiple: "a multiple of ",
    power_of_two: "a power of two",
    join: " ",
};

/// A key table's column.
const COMPACT: Words = Words {
    at_least: "≥ ",
    at_most: Some("≤ "),
    range: "",
    multiple: "multiple of ",
    power_of_two: "power of two",
    join: ", ",
};
