//! The two macros every config table and choice is declared with, so that a key is written
//! once: its name, type, default, rule, unit and doc sit on one field, and the struct, its
//! parsing, its `Default`, the range check and the key tables all come from there (after
//! rust-analyzer's `config_data!` and gem5's `Param`).
//!
//! ```text
//! section! {
//!     /// `[ftl.gc]`: garbage collection.
//!     #[derive(Debug, Clone)]
//!     pub struct GcConfig {
//!         /// Idle time before background GC starts.
//!         pub idle_us: f64 = 1000.0, float(0.001, 1e9).unit("µs");
//!         /// Victim selection policy.
//!         pub victim: VictimPolicy, free();
//!     }
//! }
//! ```
//!
//! A field with `= DEFAULT` may be left out of a file; one without is required (`config:
//! ftl.gc.victim: required key missing in ...`). `pub struct Name [Default] { ... }` also
//! implements `Default` (every field must then have a default). A table given in a file is
//! parsed onto its default, so a `[nand.timing.qlc]` that sets `read_us` keeps QLC's other
//! times. Unknown keys are errors naming the key, as serde's `deny_unknown_fields`. Field
//! attributes `#[serde(...)]` pass through to `Serialize`.

/// Declare a config table (see the module doc).
macro_rules! section {
    (@default [] $($rest:tt)*) => {};
    (@default [Default] $name:ident { $($f:ident [$def:expr])* }) => {
        impl Default for $name {
            fn default() -> Self {
                $name { $($f: $def,)* }
            }
        }
    };
    (@maybe) => { None };
    (@maybe $def:expr) => { Some($def) };
    (@missing $f:ident) => {
        return Err(serde::de::Error::missing_field(stringify!($f)))
    };
    (@missing $f:ident $def:expr) => { $def };
    (
        $(#[$meta:meta])*
        pub struct $name:ident $([$dflt:ident])? {
            $(
                $(#[doc = $doc:literal])*
                $(#[serde $sattr:tt])*
                pub $f:ident : $ty:ty $(= $def:expr)? , $spec:expr ;
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(serde::Serialize)]
        pub struct $name {
            $( $(#[doc = $doc])* $(#[serde $sattr])* pub $f: $ty, )*
        }

        impl $name {
            /// Each field's declaration, in field order.
            const FIELDS: &'static [$crate::config::keys::Field] = &[
                $( $crate::config::keys::Field {
                    name: stringify!($f),
                    doc: concat!($($doc, "\n",)*),
                    spec: $spec,
                }, )*
            ];
            const NAMES: &'static [&'static str] = &[$(stringify!($f)),*];
        }

        $crate::config::declare::section!(@default [$($dflt)?] $name { $($f [$($def)?])* });

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> ::std::result::Result<Self, D::Error> {
                <Self as $crate::config::keys::Value>::deserialize_onto(d, None)
            }
        }

        impl $crate::config::keys::Value for $name {
            fn ty() -> $crate::config::keys::Type {
                $crate::config::keys::Type::Table
            }
            fn show(&self) -> String {
                String::new()
            }
            fn keys(
                path: &str,
                _: &'static $crate::config::keys::Field,
                base: Option<&Self>,
                out: &mut Vec<$crate::config::keys::Key>,
            ) {
                let mut fields = Self::FIELDS.iter();
                $({
                    let own: Option<$ty>;
                    let d = match base {
                        Some(b) => Some(&b.$f),
                        None => {
                            own = $crate::config::declare::section!(@maybe $($def)?);
                            own.as_ref()
                        }
                    };
                    let field = fields.next().expect("one declaration per field");
                    let key = $crate::config::keys::join(path, stringify!($f));
                    <$ty as $crate::config::keys::Value>::keys(&key, field, d, out);
                })*
            }
            fn check(
                &self,
                path: &str,
                _: &$crate::config::keys::Field,
            ) -> $crate::error::Result<()> {
                let mut fields = Self::FIELDS.iter();
                $({
                    let field = fields.next().expect("one declaration per field");
                    let key = $crate::config::keys::join(path, stringify!($f));
                    $crate::config::keys::Value::check(&self.$f, &key, field)?;
                })*
                Ok(())
            }
            fn deserialize_onto<'de, D: serde::Deserializer<'de>>(
                d: D,
                base: Option<Self>,
            ) -> ::std::result::Result<Self, D::Error>
            {
                struct Visit(Option<$name>);
                impl<'de> serde::de::Visitor<'de> for Visit {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str(concat!("struct ", stringify!($name)))
                    }
                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        mut map: A,
                    ) -> ::std::result::Result<$name, A::Error> {
                        struct Given { $($f: Option<$ty>,)* }
                        let mut given = Given { $($f: None,)* };
                        let base = self.0;
                        let names = $crate::config::keys::FieldName($name::NAMES);
                        while let Some(i) = map.next_key_seed(names)? {
                            let key = $name::NAMES[i];
                            $(if key == stringify!($f) {
                                let under: Option<$ty> = match &base {
                                    Some(b) => Some(b.$f.clone()),
                                    None => $crate::config::declare::section!(@maybe $($def)?),
                                };
                                let seed = $crate::config::keys::Onto(under);
                                given.$f = Some(map.next_value_seed(seed)?);
                            })*
                        }
                        Ok($name {$(
                            $f: match (given.$f, &base) {
                                (Some(v), _) => v,
                                (None, Some(b)) => b.$f.clone(),
                                (None, None) => {
                                    $crate::config::declare::section!(@missing $f $($def)?)
                                }
                            },
                        )*})
                    }
                }
                d.deserialize_struct(stringify!($name), Self::NAMES, Visit(base))
            }
        }
    };
}

/// Declare the names a choice key takes: `pub enum E { A = "a", B = "b" }` (variant
/// attributes such as `#[default]` pass through). Adds `E::VALUES` and `E::name`.
macro_rules! choice {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $v:ident = $s:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $s)] $v, )*
        }

        impl $name {
            /// Every name the key takes, in declaration order.
            pub const VALUES: &'static [&'static str] = &[$($s),*];
            /// The name of this choice in config files and reports.
            pub fn name(self) -> &'static str {
                match self {
                    $( $name::$v => $s, )*
                }
            }
        }

        impl $crate::config::keys::Value for $name {
            fn ty() -> $crate::config::keys::Type {
                $crate::config::keys::Type::Choice(Self::VALUES)
            }
            fn show(&self) -> String {
                self.name().to_string()
            }
        }
    };
}

pub(crate) use {choice, section};

/// `skip_serializing_if` helpers: a key added later with a neutral default stays out of the
/// serialized config (the report's provenance) while it has that default.
pub(crate) fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

/// One, the default of counts that start at one (kept out of the report while default).
pub(crate) fn is_one_u32(v: &u32) -> bool {
    *v == 1
}

pub(crate) fn is_zero_f64(v: &f64) -> bool {
    *v == 0.0
}

pub(crate) fn is_false(v: &bool) -> bool {
    !*v
}
