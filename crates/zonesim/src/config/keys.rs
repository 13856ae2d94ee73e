//! What the config knows about each of its keys, beside the value: the declaration that
//! `section!` and `choice!` (`declare.rs`) turn into a struct, its parsing and defaults.
//!
//! A field's declaration is a [`Field`]: its name, its doc comment and a [`Spec`] (the valid
//! values of a number and its unit, `rule.rs`). [`Value`] is implemented by every type a key may hold; it
//! walks a section's fields to list the keys ([`keys`]), to check each number against its
//! rule ([`Value::check`], one line `config: KEY: must be ...`), and to parse a table onto the
//! values it overrides ([`Value::deserialize_onto`]: a key left out keeps its default).

use super::rule::{fmt_f64, free, Num, Spec};
use super::DeviceConfig;
use crate::error::Result;
use serde::de::{DeserializeOwned, DeserializeSeed, Deserializer};

/// What a key holds, as the tables name it.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    Int,
    Float,
    Bool,
    Str,
    /// One of these names.
    Choice(&'static [&'static str]),
    List(Box<Type>),
    /// A table of keys (a section), never a key itself.
    Table,
}

/// One field of a section as declared: its name, doc comment and rule.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    pub doc: &'static str,
    pub spec: Spec,
}

/// A key's default as the tables show it.
#[derive(Debug, Clone, PartialEq)]
pub enum Shown {
    /// The value a config that leaves the key out gets (TOML-like text).
    Value(String),
    /// The key has no default: a device file (or the preset it starts from) must give it.
    Required,
    /// Optional and unset by default: the model decides (docs say how).
    Unset,
}

/// One key of the device config: a row of the key tables.
#[derive(Debug, Clone)]
pub struct Key {
    /// Dotted name; array elements as `namespaces[].kind`.
    pub key: String,
    pub ty: Type,
    pub default: Shown,
    pub spec: Spec,
    /// The field's doc comment (lines as written).
    pub doc: &'static str,
}

impl Key {
    /// The table the key is written in (`ftl.gc` for `ftl.gc.idle_us`; "" at the top).
    pub fn table(&self) -> &str {
        self.key.rsplit_once('.').map_or("", |(t, _)| t)
    }
    /// The doc comment as one line.
    pub fn doc_line(&self) -> String {
        self.doc
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `path.name` (just `name` at the top).
pub fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// A type a config key (or section) may hold.
pub trait Value: Clone + Sized + DeserializeOwned {
    fn ty() -> Type;
    /// The value as a default column shows it.
    fn show(&self) -> String;
    /// The number to check against the key's rule, if it is one.
    fn number(&self) -> Option<Num> {
        None
    }
    /// Push the keys at `path` (this value's dotted name, declared by `field`) with their
    /// defaults read from `base` (none: required, or the field defaults of a section).
    fn keys(path: &str, field: &'static Field, base: Option<&Self>, out: &mut Vec<Key>) {
        let default = base.map_or(Shown::Required, |b| Shown::Value(b.show()));
        out.push(leaf(path, field, Self::ty(), default));
    }
    /// Check the value at `path` against `field`'s rule (a section: each of its fields).
    fn check(&self, path: &str, field: &Field) -> Result<()> {
        match self.number() {
            Some(n) => field.spec.check(path, n),
            None => Ok(()),
        }
    }
    /// Parse a value; a table keeps the values of `base` for the keys it leaves out.
    fn deserialize_onto<'de, D: Deserializer<'de>>(
        d: D,
        _base: Option<Self>,
    ) -> std::result::Result<Self, D::Error> {
        Self::deserialize(d)
    }
}

fn leaf(path: &str, field: &'static Field, ty: Type, default: Shown) -> Key {
    Key {
        key: path.to_string(),
        ty,
        default,
        spec: field.spec,
        doc: field.doc,
    }
}

/// Seed that parses a `T` onto a base value (`Value::deserialize_onto`).
pub struct Onto<T>(pub Option<T>);

impl<'de, T: Value> DeserializeSeed<'de> for Onto<T> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<T, D::Error> {
        T::deserialize_onto(d, self.0)
    }
}

/// Seed that reads a key name and gives its index among a section's field names; an unknown
/// name is an error while the key is read, so the error's path names the key.
#[derive(Clone, Copy)]
pub struct FieldName(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for FieldName {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<usize, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FieldName {
    type Value = usize;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key name")
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<usize, E> {
        self.0
            .iter()
            .position(|n| *n == v)
            .ok_or_else(|| E::unknown_field(v, self.0))
    }
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl Value for $t {
            fn ty() -> Type {
                Type::Int
            }
            fn show(&self) -> String {
                self.to_string()
            }
            fn number(&self) -> Option<Num> {
                Some(Num::Int(*self as u64))
            }
        }
    )*};
}
int_value!(u32, u64, usize);

impl Value for f64 {
    fn ty() -> Type {
        Type::Float
    }
    fn show(&self) -> String {
        fmt_f64(*self)
    }
    fn number(&self) -> Option<Num> {
        Some(Num::Float(*self))
    }
}

impl Value for bool {
    fn ty() -> Type {
        Type::Bool
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl Value for String {
    fn ty() -> Type {
        Type::Str
    }
    fn show(&self) -> String {
        format!("{self:?}")
    }
}

impl<T: Value> Value for Option<T> {
    fn ty() -> Type {
        T::ty()
    }
    fn show(&self) -> String {
        self.as_ref().map_or(String::new(), T::show)
    }
    fn keys(path: &str, field: &'static Field, base: Option<&Self>, out: &mut Vec<Key>) {
        let inner = base.and_then(Option::as_ref);
        if T::ty() == Type::Table {
            return T::keys(path, field, inner, out);
        }
        let default = inner.map_or(Shown::Unset, |v| Shown::Value(v.show()));
        out.push(leaf(path, field, T::ty(), default));
    }
    fn check(&self, path: &str, field: &Field) -> Result<()> {
        self.as_ref().map_or(Ok(()), |v| v.check(path, field))
    }
    fn deserialize_onto<'de, D: Deserializer<'de>>(
        d: D,
        base: Option<Self>,
    ) -> std::result::Result<Self, D::Error> {
        Onto(base.flatten()).deserialize(d).map(Some)
    }
}

/// Keys of a list: one per element table (`namespaces[].kind`), or the list itself.
fn list_keys<T: Value>(path: &str, field: &'static Field, base: Option<&[T]>, out: &mut Vec<Key>) {
    if T::ty() == Type::Table {
        return T::keys(&format!("{path}[]"), field, None, out);
    }
    let default = base.map_or(Shown::Required, |b| Shown::Value(show_list(b)));
    out.push(leaf(path, field, Type::List(Box::new(T::ty())), default));
}

fn show_list<T: Value>(items: &[T]) -> String {
    let items: Vec<String> = items.iter().map(T::show).collect();
    format!("[{}]", items.join(", "))
}

/// Each element checked as `path[i]`.
fn check_list<T: Value>(items: &[T], path: &str, field: &Field) -> Result<()> {
    for (i, v) in items.iter().enumerate() {
        v.check(&format!("{path}[{i}]"), field)?;
    }
    Ok(())
}

impl<T: Value> Value for Vec<T> {
    fn ty() -> Type {
        Type::List(Box::new(T::ty()))
    }
    fn show(&self) -> String {
        show_list(self)
    }
    fn keys(path: &str, field: &'static Field, base: Option<&Self>, out: &mut Vec<Key>) {
        list_keys(path, field, base.map(Vec::as_slice), out)
    }
    fn check(&self, path: &str, field: &Field) -> Result<()> {
        check_list(self, path, field)
    }
}

impl<T: Value, const N: usize> Value for [T; N]
where
    [T; N]: DeserializeOwned,
{
    fn ty() -> Type {
        Type::List(Box::new(T::ty()))
    }
    fn show(&self) -> String {
        show_list(self)
    }
    fn keys(path: &str, field: &'static Field, base: Option<&Self>, out: &mut Vec<Key>) {
        list_keys(path, field, base.map(|b| b.as_slice()), out)
    }
    fn check(&self, path: &str, field: &Field) -> Result<()> {
        check_list(self, path, field)
    }
}

/// The declaration of the whole config, as a field (it has no name of its own).
const ROOT: Field = Field {
    name: "",
    doc: "",
    spec: free(),
};

/// Every key of the device config, in declaration order, with its default.
pub fn keys() -> Vec<Key> {
    let mut out = Vec::new();
    <DeviceConfig as Value>::keys("", &ROOT, None, &mut out);
    out
}

impl DeviceConfig {
    /// Check every key against its declared rule (the rules that relate keys are in
    /// `validate.rs`).
    pub fn check_keys(&self) -> Result<()> {
        Value::check(self, "", &ROOT)
    }
}
