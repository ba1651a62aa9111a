//! Messages for people: ids in warnings and errors shown with the module's `OpName`s.
//!
//! A diagnostic's location is structure (`Location { opcode, result, function, block }`): the
//! renderer (`crate::diagnostic::render`) names its ids from there, asking [`Names::get`] for
//! each (`OpFunctionCall %812 in function %1313 (matmul_kernel_with_block_pointers), block
//! %1320`). Only free text, where no structure says which words are ids (a diagnostic's
//! message, spirv-val's messages, the text of errors that carry no diagnostics), is scanned for
//! `%N` by [`Names::annotate`]. One scan of the debug section builds the table; annotating is
//! linear in the message length.

use std::collections::HashMap;

use spvopt_ir::{Id, Module};

/// The `OpName` of every named id.
#[derive(Debug, Default)]
pub struct Names(HashMap<u32, String>);

impl Names {
    /// The names of `m` (Itanium-mangled names shown demangled to their base name).
    pub fn build(m: &Module) -> Names {
        let names = spvopt_analysis::builtins::debug_names(m, &|_: Id| true);
        Names(
            names
                .into_iter()
                .map(|(id, n)| {
                    (
                        id.word(),
                        spvopt_analysis::builtins::itanium_base_name(&n).to_string(),
                    )
                })
                .collect(),
        )
    }

    /// The name of id `word`, if the module names it.
    pub fn get(&self, word: u32) -> Option<&str> {
        self.0.get(&word).map(String::as_str)
    }

    /// Names id `word` `name` (replacing a name it had).
    pub fn insert(&mut self, word: u32, name: String) {
        self.0.insert(word, name);
    }

    /// `message` with every `%N` the module names followed by ` (name)`.
    pub fn annotate(&self, message: &str) -> String {
        if self.0.is_empty() {
            return message.to_string();
        }
        let mut out = String::with_capacity(message.len() + 16);
        let mut rest = message;
        while let Some(p) = rest.find('%') {
            out.push_str(&rest[..=p]);
            rest = &rest[p + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                continue;
            }
            out.push_str(&rest[..digits]);
            let name = rest[..digits].parse::<u32>().ok().and_then(|w| self.get(w));
            rest = &rest[digits..];
            if let Some(name) = name {
                out.push_str(" (");
                out.push_str(name);
                out.push(')');
            }
        }
        out.push_str(rest);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotates_named_ids_only() {
        let mut n = Names::default();
        n.0.insert(12, "uint".into());
        assert_eq!(
            n.annotate("OpLoad %12 in function %7, 100%"),
            "OpLoad %12 (uint) in function %7, 100%"
        );
        assert_eq!(n.annotate("%12"), "%12 (uint)");
        assert_eq!(n.annotate("%120 %1"), "%120 %1");
    }
}
