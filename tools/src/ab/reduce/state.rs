//! What `spv-ab reduce` shrinks: a module, its launch (as editable JSON), and how its kernel
//! parameters map to the input's; the size order every accepted step must decrease; the
//! clean-up every candidate gets; and the validity check every candidate must pass.
//!
//! Why the reduction terminates: a candidate is accepted only when its [`Size`] is strictly
//! smaller (lexicographically: instructions, words, launch weight, constant weight), and sizes
//! are tuples of natural numbers. Why every kept module is acceptable to a driver team: each
//! candidate passes our structural check (`spvopt_ir::verify`) and, when the input passed it,
//! the same validation spv-opt runs on input (SPIRV-Tools in process, with the deviations real
//! compiler output carries as warnings). The clean-up only removes what nothing observable
//! uses (dead code, unreachable blocks, names and decorations of removed ids) or merges a block
//! into its only predecessor, so it keeps behaviour.

use std::path::{Path, PathBuf};

use serde_json::Value;
use spvopt_analysis::{Analyses, Target};
use spvopt_ir::spirv::Op;
use spvopt_ir::text::TargetEnv;
use spvopt_ir::{BlockId, FuncId, Id, InstId, Module, Section};
use spvopt_passes::{Changes, Pass};
use spvopt_sim::Launch;

/// A launch file kept as JSON, so that a reduced launch can be written back as readable as
/// it came; `base` resolves `"buffer"` file paths.
#[derive(Clone, Debug)]
pub struct LaunchFile {
    pub json: Value,
    pub base: PathBuf,
}

impl LaunchFile {
    pub fn read(path: &Path) -> Result<LaunchFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let json: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let base = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let base = std::fs::canonicalize(&base).unwrap_or(base);
        let file = LaunchFile { json, base };
        file.parse()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(file)
    }

    pub fn parse(&self) -> Result<Launch, spvopt_sim::SimError> {
        Launch::from_json(&self.json.to_string(), &self.base)
    }

    /// The JSON to write beside the reduced module: `"buffer"` paths made absolute.
    pub fn to_writable(&self) -> Value {
        let mut json = self.json.clone();
        if let Some(args) = json.get_mut("args").and_then(Value::as_array_mut) {
            for a in args {
                if let Some(Value::String(f)) = a.get_mut("buffer") {
                    *f = self.base.join(&*f).display().to_string();
                }
            }
        }
        json
    }

    pub fn sizes(&self, key: &str) -> [u64; 3] {
        let mut out = [1; 3];
        if let Some(a) = self.json.get(key).and_then(Value::as_array) {
            for (d, v) in a.iter().take(3).enumerate() {
                out[d] = v.as_u64().unwrap_or(1);
            }
        }
        out
    }

    pub fn set_sizes(&mut self, key: &str, v: [u64; 3]) {
        self.json[key] = Value::from(v.to_vec());
    }

    pub fn args(&self) -> &[Value] {
        self.json
            .get("args")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    pub fn args_mut(&mut self) -> Option<&mut Vec<Value>> {
        self.json.get_mut("args").and_then(Value::as_array_mut)
    }

    /// Total invocations, buffer bytes and arguments: what shrinking the launch decreases.
    fn weight(&self) -> u64 {
        let g = self.sizes("global_size");
        let l = self.sizes("local_size");
        let mut w = g.iter().product::<u64>() + l.iter().product::<u64>();
        for a in self.args() {
            w += 1;
            for key in ["buffer_random", "buffer_zeros", "local"] {
                w += a.get(key).and_then(Value::as_u64).unwrap_or(0);
            }
            w += scalar_value(a).unwrap_or(0);
        }
        w
    }
}

/// The value of an integer scalar argument.
pub fn scalar_value(a: &Value) -> Option<u64> {
    let ty = a.get("scalar")?.as_str()?;
    if !(ty.starts_with('u') || ty.starts_with('i')) {
        return None;
    }
    a.get("value")?.as_u64()
}

/// One state of the reduction.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub module: Module,
    pub launch: Option<LaunchFile>,
    /// For each parameter of the launched kernel, its index in the input's kernel.
    pub arg_origin: Vec<usize>,
}

/// The order reduction descends: smaller is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Size {
    pub instructions: usize,
    pub words: usize,
    pub launch: u64,
    pub constants: u64,
}

impl Candidate {
    pub fn size(&self) -> Size {
        let m = &self.module;
        let (mut instructions, mut words, mut constants) = (0, 5, 0u64);
        for i in m.all_insts() {
            let inst = m.inst(i);
            instructions += 1;
            words += inst.word_count();
            if inst.is(Op::Constant) {
                constants += inst.operands().iter().map(|&w| u64::from(w)).sum::<u64>();
            }
        }
        Size {
            instructions,
            words,
            launch: self.launch.as_ref().map_or(0, LaunchFile::weight),
            constants,
        }
    }

    /// The launched kernel's function, when the module has an entry point of that name (else
    /// the first entry point's).
    pub fn kernel_function(&self, kernel: Option<&str>) -> Option<FuncId> {
        let target = entry_points(&self.module)
            .into_iter()
            .find(|(_, name, _)| kernel.is_none_or(|k| k == name))
            .map(|(_, _, f)| f)?;
        function_of(&self.module, target)
    }
}

/// Every `OpEntryPoint`: the instruction, its name and its function's id.
pub fn entry_points(m: &Module) -> Vec<(InstId, String, Id)> {
    m.section(Section::EntryPoint)
        .iter()
        .filter_map(|&i| {
            let inst = m.inst(i);
            let f = inst.operand_id(1)?;
            let name = spvopt_ir::grammar::decode_string(&inst.operands()[2..])
                .unwrap_or("")
                .to_string();
            Some((i, name, f))
        })
        .collect()
}

/// The function whose result id is `id`.
pub fn function_of(m: &Module, id: Id) -> Option<FuncId> {
    m.function_with_id(id)
}

/// The clean-up after every edit: unreachable blocks go, straight-line blocks merge, dead code
/// and dangling names, decorations, execution modes and interface entries go.
pub fn clean_up(m: &mut Module) {
    let funcs: Vec<FuncId> = m.function_ids().collect();
    for f in funcs {
        remove_unreachable_blocks(m, f);
        merge_straight_blocks(m, f);
    }
    let mut analyses = Analyses::new();
    let _ = spvopt_passes::dce::DeadCodeElimination.run(
        m,
        &mut analyses,
        &Target::default(),
        &mut Changes::unlimited(),
    );
    drop_dangling(m);
}

/// The successor labels of block `b`.
pub fn successors(m: &Module, b: BlockId) -> Vec<Id> {
    let Some(t) = m.block_terminator(b) else {
        return Vec::new();
    };
    let inst = m.inst(t);
    let ops = inst.operands();
    let ids = |idx: &[usize]| idx.iter().filter_map(|&k| inst.operand_id(k)).collect();
    match inst.op() {
        Some(Op::Branch) => ids(&[0]),
        Some(Op::BranchConditional) => ids(&[1, 2]),
        Some(Op::Switch) => {
            let mut v = vec![inst.operand_id(1)];
            // Pairs of (literal, label) after selector and default; literals of the
            // selector's width (one or two words).
            let width = m
                .type_of(inst.operand_id(0).unwrap_or(Id::new(1).expect("1")))
                .and_then(|t| m.literal_words_of_type(t))
                .unwrap_or(1) as usize;
            let mut k = 2 + width;
            while k < ops.len() {
                v.push(inst.operand_id(k));
                k += width + 1;
            }
            v.into_iter().flatten().collect()
        }
        _ => Vec::new(),
    }
}

fn block_of_label(m: &Module, f: FuncId, label: Id) -> Option<BlockId> {
    m.function(f)
        .blocks
        .iter()
        .copied()
        .find(|&b| m.block_label(b) == label)
}

/// Removes blocks the entry block does not reach, and phi entries from removed predecessors.
pub fn remove_unreachable_blocks(m: &mut Module, f: FuncId) {
    let blocks = m.function(f).blocks.clone();
    let Some(&entry) = blocks.first() else { return };
    let mut reached = vec![entry];
    let mut k = 0;
    while k < reached.len() {
        for s in successors(m, reached[k]) {
            if let Some(b) = block_of_label(m, f, s) {
                if !reached.contains(&b) {
                    reached.push(b);
                }
            }
        }
        k += 1;
    }
    if reached.len() == blocks.len() {
        return;
    }
    let dead: Vec<Id> = blocks
        .iter()
        .filter(|b| !reached.contains(b))
        .map(|&b| m.block_label(b))
        .collect();
    for &b in &blocks {
        if !reached.contains(&b) {
            m.remove_block(b);
        }
    }
    for &b in &reached {
        for label in &dead {
            remove_phi_entries(m, b, *label);
        }
    }
}

/// The phis at the start of block `b`.
fn phis(m: &Module, b: BlockId) -> Vec<InstId> {
    m.block_insts(b)
        .take_while(|&i| m.inst(i).is(Op::Phi))
        .collect()
}

/// The parameters (`OpFunctionParameter`) of function `f`.
pub fn params(m: &Module, f: FuncId) -> Vec<InstId> {
    m.function(f)
        .header
        .iter()
        .copied()
        .filter(|&p| m.inst(p).is(Op::FunctionParameter))
        .collect()
}

/// Removes from the phis of block `b` the entries whose predecessor is `pred`.
pub fn remove_phi_entries(m: &mut Module, b: BlockId, pred: Id) {
    for p in phis(m, b) {
        let inst = m.inst(p);
        let start = inst.operand_start();
        let mut kept: Vec<u32> = inst.words[..start].to_vec();
        for pair in inst.words[start..].chunks(2) {
            if pair.len() == 2 && pair[1] != pred.word() {
                kept.extend_from_slice(pair);
            }
        }
        m.set_inst_words(p, &kept);
    }
}

/// Merges a block into its predecessor when that predecessor ends with an unconditional branch
/// to it and is its only predecessor (no merge instructions involved); phis of one entry
/// become their value.
fn merge_straight_blocks(m: &mut Module, f: FuncId) {
    loop {
        let blocks = m.function(f).blocks.clone();
        let mut preds: std::collections::HashMap<Id, Vec<BlockId>> = Default::default();
        for &b in &blocks {
            for s in successors(m, b) {
                preds.entry(s).or_default().push(b);
            }
        }
        let pair = blocks.iter().skip(1).find_map(|&b| {
            let label = m.block_label(b);
            let [a] = preds.get(&label)?.as_slice() else {
                return None;
            };
            let t = m.block_terminator(*a)?;
            let structured = |x: BlockId| {
                m.block_insts(x)
                    .any(|i| m.inst(i).is(Op::LoopMerge) || m.inst(i).is(Op::SelectionMerge))
            };
            (*a != b && m.inst(t).is(Op::Branch) && !structured(*a) && !structured(b))
                .then_some((*a, b, t))
        });
        let Some((a, b, branch)) = pair else { return };
        let insts: Vec<InstId> = m.block_insts(b).collect();
        let mut replaced = Vec::new();
        for &i in &insts {
            let inst = m.inst(i);
            if inst.is(Op::Phi) {
                if let (Some(r), Some(v)) = (inst.result_id(), inst.operand_id(0)) {
                    replaced.push((r, v));
                }
                m.erase(i);
            }
        }
        m.erase(branch);
        for &i in &insts {
            if !m.inst(i).is(Op::Phi) {
                m.move_to_end(i, a);
            }
        }
        let (old, new) = (m.block_label(b), m.block_label(a));
        for s in successors(m, a) {
            if let Some(sb) = block_of_label(m, f, s) {
                rename_phi_predecessor(m, sb, old, new);
            }
        }
        m.remove_block(b);
        for (r, v) in replaced {
            m.replace_all_uses(r, v);
        }
    }
}

/// In the phis of block `b`, predecessor `old` becomes `new`.
fn rename_phi_predecessor(m: &mut Module, b: BlockId, old: Id, new: Id) {
    for p in phis(m, b) {
        let inst = m.inst_mut(p);
        let start = inst.operand_start();
        let mut k = start + 1;
        while k < inst.words.len() {
            if inst.words[k] == old.word() {
                inst.words[k] = new.word();
            }
            k += 2;
        }
    }
}

/// Removes names, decorations, execution modes and entry-point interface entries of ids that
/// are no longer defined, and imports of instruction sets nothing uses.
fn drop_dangling(m: &mut Module) {
    let defined = |m: &Module, w: u32| Id::new(w).is_some_and(|id| m.def(id).is_some());
    m.retain_section(Section::Debug, |m, i| {
        let inst = m.inst(i);
        !(inst.is(Op::Name) || inst.is(Op::MemberName))
            || inst.operands().first().is_some_and(|&w| defined(m, w))
    });
    m.retain_section(Section::Annotation, |m, i| {
        let inst = m.inst(i);
        let ops = inst.operands();
        if inst.is(Op::DecorationGroup) {
            return true;
        }
        if inst.is(Op::GroupDecorate) || inst.is(Op::GroupMemberDecorate) {
            return ops.iter().all(|&w| defined(m, w) || !looks_like_id(m, w));
        }
        ops.first().is_some_and(|&w| defined(m, w))
    });
    let entry_functions: Vec<u32> = entry_points(m).iter().map(|e| e.2.word()).collect();
    m.retain_section(Section::ExecutionMode, |m, i| {
        m.inst(i)
            .operands()
            .first()
            .is_some_and(|&w| defined(m, w) && entry_functions.contains(&w))
    });
    m.retain_section(Section::EntryPoint, |m, i| {
        m.inst(i).operands().get(1).is_some_and(|&w| defined(m, w))
    });
    let eps: Vec<InstId> = m.section(Section::EntryPoint).to_vec();
    for e in eps {
        let name_words = {
            let ops = m.inst(e).operands();
            spvopt_ir::grammar::decode_string(&ops[2..]).map_or(0, |s| s.len() / 4 + 1)
        };
        let start = m.inst(e).operand_start() + 2 + name_words;
        let words: Vec<u32> = m.inst(e).words.to_vec();
        let mut kept: Vec<u32> = words[..start.min(words.len())].to_vec();
        for &w in words.iter().skip(start) {
            if defined(m, w) {
                kept.push(w);
            }
        }
        m.set_inst_words(e, &kept);
    }
    let used_sets: Vec<u32> = m
        .all_insts()
        .filter(|&i| m.inst(i).is(Op::ExtInst))
        .filter_map(|i| m.inst(i).operands().first().copied())
        .collect();
    m.retain_section(Section::ExtInstImport, |m, i| {
        m.inst(i)
            .result_id()
            .is_some_and(|r| used_sets.contains(&r.word()))
    });
}

fn looks_like_id(m: &Module, w: u32) -> bool {
    (w as usize) < m.id_capacity()
}

/// Whether `m` passes our structural checks and, when `env` is given, validation.
pub fn is_valid(m: &Module, env: Option<TargetEnv>) -> bool {
    if spvopt_ir::verify(m).is_err() {
        return false;
    }
    match env {
        Some(env) => spvopt_passes::validate::validate_module(m, env).is_ok(),
        None => true,
    }
}
