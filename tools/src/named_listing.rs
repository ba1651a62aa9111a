//! `spv-opt --print-analysis`'s listing as a person reads it (issue 42): every instruction as
//! `--emit-text` and `--print-changed` print it (SPIRV-Tools' disassembly: opcode and enumerant
//! names, ids by their `OpName` or type), and the analysis' comments with the same names for
//! the ids they mention. The analysis crate's own listing (`spvopt_analysis::print::annotate`,
//! numbers only) stays what the analysis fixtures are written against.

use std::collections::HashMap;

use spvopt_analysis::print::AnnotatedLine;
use spvopt_ir::Module;

/// The listing of `lines` (every instruction of `m`, in order) with names. When the
/// disassembly does not have one line per instruction (it always has; a guard), the numeric
/// listing.
pub fn named_listing(m: &Module, lines: &[AnnotatedLine]) -> String {
    let dis = spvopt_ir::text::disassemble(&m.to_words()).unwrap_or_default();
    let texts: Vec<&str> = dis
        .lines()
        .filter(|l| !l.starts_with(';') && !l.trim().is_empty())
        .collect();
    let named = texts.len() == lines.len();
    let mut names: HashMap<u32, &str> = HashMap::new();
    if named {
        for (l, t) in lines.iter().zip(&texts) {
            let (Some(id), Some((lhs, _))) = (m.inst(l.inst).result_id(), t.split_once(" = "))
            else {
                continue;
            };
            if lhs.starts_with('%') {
                names.insert(id.word(), lhs);
            }
        }
    }
    let mut out = String::new();
    for (k, l) in lines.iter().enumerate() {
        if l.indent {
            out.push_str("  ");
        }
        if named {
            out.push_str(texts[k].trim());
        } else {
            out.push_str(&l.text);
        }
        if !l.comments.is_empty() {
            out.push_str("  ; ");
            out.push_str(&rename_ids(&l.comments.join("; "), &names));
        }
        out.push('\n');
    }
    out
}

/// `text` with every `%N` that `names` knows replaced by its name.
fn rename_ids(text: &str, names: &HashMap<u32, &str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('%') {
        out.push_str(&rest[..p]);
        let after = &rest[p + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        match after[..digits]
            .parse::<u32>()
            .ok()
            .and_then(|n| names.get(&n))
        {
            Some(name) => out.push_str(name),
            None => out.push_str(&rest[p..p + 1 + digits]),
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_in_comments_take_their_names() {
        let names: HashMap<u32, &str> = [(5, "%n"), (12, "%uint_16")].into_iter().collect();
        assert_eq!(
            rename_ids("affine 32*i + %5; root %12 + %7; 50%", &names),
            "affine 32*i + %n; root %uint_16 + %7; 50%"
        );
    }
}
