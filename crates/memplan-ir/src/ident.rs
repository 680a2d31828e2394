//! Names that are nearly always one of a few hundred known strings (op names such as
//! `memref.alloc`, the registry's inherent attribute names such as `operandSegmentSizes`).
//! An [`Ident`] borrows the `'static` text of the registry's table when the name is known and
//! owns its text only otherwise, so the 100,000th `linalg.fill` costs no heap allocation —
//! the role MLIR's uniqued `OperationName` / `StringAttr` play (mlir/include/mlir/IR/
//! OperationSupport.h), without a global interner.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

/// A name: `'static` text from a table, or owned text for names outside it.
/// Compares, hashes and orders as its text; dereferences to `str`.
#[derive(Clone)]
pub struct Ident(Repr);

#[derive(Clone)]
enum Repr {
    Static(&'static str),
    Owned(Box<str>),
}

impl Ident {
    /// A name borrowing static text (no allocation).
    pub const fn new_static(s: &'static str) -> Ident {
        Ident(Repr::Static(s))
    }
    /// Address and length of the text when it is static (a cheap identity for lookups
    /// keyed by the registry's own strings).
    pub fn static_key(&self) -> Option<(usize, usize)> {
        match &self.0 {
            Repr::Static(s) => Some((s.as_ptr() as usize, s.len())),
            Repr::Owned(_) => None,
        }
    }
    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Static(s) => s,
            Repr::Owned(s) => s,
        }
    }
}

impl Deref for Ident {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Ident {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Borrow<str> for Ident {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&'static str> for Ident {
    fn from(s: &'static str) -> Ident {
        Ident::new_static(s)
    }
}

impl From<String> for Ident {
    fn from(s: String) -> Ident {
        Ident(Repr::Owned(s.into_boxed_str()))
    }
}

impl From<&String> for Ident {
    fn from(s: &String) -> Ident {
        Ident(Repr::Owned(s.as_str().into()))
    }
}

impl From<Ident> for String {
    fn from(s: Ident) -> String {
        s.as_str().to_string()
    }
}

impl PartialEq for Ident {
    fn eq(&self, o: &Ident) -> bool {
        self.as_str() == o.as_str()
    }
}
impl Eq for Ident {}

impl PartialEq<str> for Ident {
    fn eq(&self, o: &str) -> bool {
        self.as_str() == o
    }
}
impl PartialEq<&str> for Ident {
    fn eq(&self, o: &&str) -> bool {
        self.as_str() == *o
    }
}
impl PartialEq<String> for Ident {
    fn eq(&self, o: &String) -> bool {
        self.as_str() == o.as_str()
    }
}
impl PartialEq<Ident> for str {
    fn eq(&self, o: &Ident) -> bool {
        self == o.as_str()
    }
}
impl PartialEq<Ident> for &str {
    fn eq(&self, o: &Ident) -> bool {
        *self == o.as_str()
    }
}

impl Hash for Ident {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.as_str().hash(h)
    }
}

impl PartialOrd for Ident {
    fn partial_cmp(&self, o: &Ident) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ident {
    fn cmp(&self, o: &Ident) -> Ordering {
        self.as_str().cmp(o.as_str())
    }
}

impl fmt::Display for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Ident {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_and_owned_compare_as_text() {
        let a = Ident::from("memref.alloc");
        let b = Ident::from(String::from("memref.alloc"));
        assert_eq!(a, b);
        assert_eq!(a, "memref.alloc");
        assert_ne!(a, Ident::from("memref.dealloc"));
        let (x, y) = (Ident::from("a"), Ident::from(String::from("b")));
        assert!(x < y);
        assert_eq!(x.cmp(&y), std::cmp::Ordering::Less);
        assert_eq!(format!("{a} {b:?}"), "memref.alloc \"memref.alloc\"");
    }
}
