//! Restricted analyses agree with the whole-module ones: on every corpus kernel (`tests/corpus`,
//! builtin-call and native forms), induction and provenance computed for the block operations'
//! value slice (`Induction::build_for`, `Provenance::build_for`) give each value of the slice
//! exactly the facts the whole-module analyses give it.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use spvopt_analysis::builtins::Callees;
use spvopt_analysis::decorations::Decorations;
use spvopt_analysis::value_slice::ValueSlice;
use spvopt_analysis::{Analyses, Cfg, Induction, Loops, Provenance};
use spvopt_ir::Id;

fn corpus_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            corpus_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "spv") {
            out.push(p);
        }
    }
}

#[test]
fn slice_facts_equal_whole_module_facts_on_the_corpus() {
    let mut files = Vec::new();
    corpus_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus"),
        &mut files,
    );
    files.sort();
    assert!(files.len() >= 10, "corpus not found");
    let mut compared = 0usize;
    for path in &files {
        let name = path.display();
        let bytes = std::fs::read(path).expect("read corpus file");
        let m = spvopt_ir::load_bytes(&bytes).expect("load corpus file");
        let mut a = Analyses::new();
        let cfg = a.get::<Cfg>(&m);
        let loops: Rc<Loops> = a.get::<Loops>(&m);
        let full_ind = a.get::<Induction>(&m);
        let full_prov = a.get::<Provenance>(&m);
        let dec = Decorations::build(&m);
        let callees = Callees::build(&m, &dec);
        let slice = ValueSlice::of_block_operations(&m, &callees);
        let ind = Induction::build_for(&m, &cfg, loops, &slice);
        let prov = Provenance::build_for(&m, &cfg, &ind, &dec, &slice);
        for w in 1..m.id_capacity() as u32 {
            let Some(id) = Id::new(w) else { continue };
            if !slice.contains(id) {
                continue;
            }
            compared += 1;
            assert_eq!(ind.form(id), full_ind.form(id), "{name}: form of %{w}");
            assert_eq!(
                ind.vector_form(id),
                full_ind.vector_form(id),
                "{name}: vector form of %{w}"
            );
            assert_eq!(ind.varies_in(id), full_ind.varies_in(id), "{name}: %{w}");
            assert_eq!(
                ind.known_zero_bits(id),
                full_ind.known_zero_bits(id),
                "{name}: known bits of %{w}"
            );
            assert_eq!(
                ind.induction_variable(id),
                full_ind.induction_variable(id),
                "{name}: induction variable %{w}"
            );
            assert_eq!(
                prov.info(id),
                full_prov.info(id),
                "{name}: provenance of %{w}"
            );
        }
    }
    assert!(compared > 1000, "only {compared} values compared");
}
