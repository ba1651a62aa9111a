//! The one static pass registry. The CLI flags (`--NAME`), `--list-passes`, pipeline strings
//! (`"strip-debug,dce"`), `-O` and the library all read it.

use crate::convert_tensor_addressing::ConvertTensorAddressing;
use crate::dce::DeadCodeElimination;
use crate::declare_subgroup_size::DeclareSubgroupSize;
use crate::fuse_block_loads::FuseBlockLoads;
use crate::hoist_block_payloads::HoistBlockPayloads;
use crate::insert_prefetches::InsertPrefetches;
use crate::legalize::Legalize;
use crate::lower_block_payloads::LowerBlockPayloads;
use crate::lower_builtins::LowerBuiltins;
use crate::lower_mma::LowerMma;
use crate::pass::{Pass, PassError};
use crate::raise_block_io::RaiseBlockIo;
use crate::raise_builtins::RaiseBuiltins;
use crate::split_block_loads::SplitBlockLoads;
use crate::strip_debug::StripDebug;
use crate::strip_prefetches::StripPrefetches;

/// An option a pass accepts: in pipelines as `name(key=value)`, on the CLI as `--key=value`.
#[derive(Debug)]
pub struct PassOptionInfo {
    pub key: &'static str,
    pub description: &'static str,
    pub default: &'static str,
}

pub use crate::pass::PassOptions;

/// One registry entry.
pub struct PassInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub options: &'static [PassOptionInfo],
    pub construct: fn(&PassOptions) -> Result<Box<dyn Pass>, PassError>,
}

impl std::fmt::Debug for PassInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PassInfo")
            .field("name", &self.name)
            .finish()
    }
}

fn no_options(name: &'static str, opts: &PassOptions) -> Result<(), PassError> {
    match opts.first() {
        None => Ok(()),
        Some((k, _)) => Err(PassError::BadOption {
            pass: name.to_string(),
            option: k.clone(),
            message: "this pass takes no options".into(),
        }),
    }
}

/// Every pass, in `--list-passes` order.
pub static REGISTRY: &[PassInfo] = &[
    PassInfo {
        name: "strip-debug",
        description: "Remove debug information: OpLine/OpNoLine, names, strings, sources, \
                      OpModuleProcessed, OpenCL.DebugInfo.100 and non-semantic ext insts",
        options: &[],
        construct: |o| {
            no_options("strip-debug", o)?;
            Ok(Box::new(StripDebug))
        },
    },
    PassInfo {
        name: "dce",
        description: "Remove unused types, constants, global variables, functions and \
                      side-effect-free instructions (keeps entry points, their interfaces \
                      and exported/imported items)",
        options: &[],
        construct: |o| {
            no_options("dce", o)?;
            Ok(Box::new(DeadCodeElimination))
        },
    },
    PassInfo {
        name: "raise-block-io",
        description: "Load MMA operands that a kernel stages through shared local memory \
                      (Workgroup stores, a barrier, Workgroup loads) with 2D block loads \
                      straight from global memory where the elements, their order and the \
                      masks are exactly a block load's; the staging goes. Legality the module \
                      cannot prove (work-group size, surface alignment and bounds) is checked \
                      once at run time, falling back to the unchanged kernel body",
        options: &[],
        construct: |o| {
            no_options("raise-block-io", o)?;
            Ok(Box::new(RaiseBlockIo))
        },
    },
    PassInfo {
        name: "fuse-block-loads",
        description: "Merge adjacent 2D block loads into one with Block Count > 1, adjacent 2D \
                      block prefetches into one wider prefetch, and reuse repeated loads, where \
                      the target allows and the per-invocation data stays identical",
        options: &[],
        construct: |o| {
            no_options("fuse-block-loads", o)?;
            Ok(Box::new(FuseBlockLoads))
        },
    },
    PassInfo {
        name: "insert-prefetches",
        description: "Prefetch loop-carried 2D block loads and 1D subgroup block reads \
                      --prefetch-distance iterations ahead (in the loop, plus prologue \
                      prefetches in the preheader), with cache-control decorations; loads \
                      an existing prefetch already covers are left alone",
        options: &[
            PassOptionInfo {
                key: "prefetch-distance",
                description: "iterations ahead to prefetch (1-16)",
                default: "2",
            },
            PassOptionInfo {
                key: "prefetch-cooperative",
                description: "split a work-group's shared tile across its subgroups when all \
                              subgroups provably load the same tile (smaller prefetches)",
                default: "false",
            },
            PassOptionInfo {
                key: "prefetch-cache",
                description: "CacheControlLoadINTEL of the prefetches: L1<x>_L3<y> with x, y \
                              in UC, C, S, IAR, CC, or none",
                default: "L1C_L3C",
            },
            PassOptionInfo {
                key: "prefetch-1d",
                description: "buffer prefetches of 1D subgroup block reads: auto (not for \
                              targets whose consumer is IGC: pvc, bmg, lnl, ptl, cri, where \
                              IGC 2.40's code shows only their cost), true or false",
                default: "auto",
            },
        ],
        construct: |o| Ok(Box::new(InsertPrefetches::from_options(o)?)),
    },
    PassInfo {
        name: "hoist-block-payloads",
        description: "Build the address payload of a loop's 2D block prefetches once in the \
                      preheader through IGC's payload builtins and set only the coordinate \
                      that changes per iteration (for targets whose consumer is IGC: pvc, bmg, \
                      lnl, ptl, cri)",
        options: &[PassOptionInfo {
            key: "hoist-consumer",
            description: "auto: only for the IGC targets; igc: on any target with 2D block IO",
            default: "auto",
        }],
        construct: |o| Ok(Box::new(HoistBlockPayloads::from_options(o)?)),
    },
    PassInfo {
        name: "lower-block-payloads",
        description: "Replace IGC's 2D block address payload builtins by the native 2D block \
                      ops (the inverse of hoist-block-payloads), for other consumers and A/B",
        options: &[],
        construct: |o| {
            no_options("lower-block-payloads", o)?;
            Ok(Box::new(LowerBlockPayloads))
        },
    },
    PassInfo {
        name: "split-block-loads",
        description: "Split 2D block loads with Block Count N > 1 into N single-block loads \
                      (the inverse of fuse-block-loads)",
        options: &[],
        construct: |o| {
            no_options("split-block-loads", o)?;
            Ok(Box::new(SplitBlockLoads))
        },
    },
    PassInfo {
        name: "strip-prefetches",
        description: "Remove every prefetch (2D block, 1D block, OpenCL prefetch, prefetch \
                      builtin calls)",
        options: &[],
        construct: |o| {
            no_options("strip-prefetches", o)?;
            Ok(Box::new(StripPrefetches))
        },
    },
    PassInfo {
        name: "raise-builtins",
        description: "Turn calls to the imported OpenCL builtins intel_sub_group_2d_block_* and \
                      intel_sub_group_*_matrix_mad_k*, and Triton's llvm.genx.GenISA.LSC2DBlock* \
                      calls, into native OpSubgroup2DBlock*INTEL / \
                      OpSubgroupMatrixMultiplyAccumulateINTEL; declare their capabilities and \
                      extensions",
        options: &[],
        construct: |o| {
            no_options("raise-builtins", o)?;
            Ok(Box::new(RaiseBuiltins))
        },
    },
    PassInfo {
        name: "lower-builtins",
        description: "Turn native OpSubgroup2DBlock*INTEL and \
                      OpSubgroupMatrixMultiplyAccumulateINTEL \
                      ops into calls to imported OpenCL builtins (for drivers without the SPIR-V \
                      extensions); drop the unused capabilities and extensions",
        options: &[],
        construct: |o| {
            no_options("lower-builtins", o)?;
            Ok(Box::new(LowerBuiltins))
        },
    },
    PassInfo {
        name: "convert-tensor-addressing",
        description: "Turn Subgroup-scope cooperative matrices (SPV_KHR_cooperative_matrix, \
                      SPV_NV_tensor_addressing layouts/views) into per-invocation data in the \
                      Intel MMA layouts: MulAdd becomes OpSubgroupMatrixMultiplyAccumulateINTEL \
                      atoms, tensor and strided loads/stores 2D block IO where legal, else an \
                      exact per-element loop (every clamp mode, view, clip, block size)",
        options: &[],
        construct: |o| {
            no_options("convert-tensor-addressing", o)?;
            Ok(Box::new(ConvertTensorAddressing))
        },
    },
    PassInfo {
        name: "lower-mma",
        description: "Make every OpSubgroupMatrixMultiplyAccumulateINTEL legal for --target: \
                      split shapes the target lacks onto its MMA atoms (row chunks, K chains \
                      with operand repacking by subgroup shuffles) or emulate them with \
                      subgroup-scope OpGroupBroadcast and fma (no DPAS, unsupported subgroup \
                      size or element types); an MMA it can do neither with is an error",
        options: &[],
        construct: |o| {
            no_options("lower-mma", o)?;
            Ok(Box::new(LowerMma))
        },
    },
    PassInfo {
        name: "declare-subgroup-size",
        description: "Declare SubgroupSize N (--subgroup-size N) on every kernel that declares \
                      none, with the SubgroupDispatch capability; N must be one of --target's \
                      subgroup sizes. For input whose size is chosen at dispatch, e.g. \
                      cooperative-matrix kernels for convert-tensor-addressing. spv-opt \
                      --subgroup-size N runs it first",
        options: &[PassOptionInfo {
            key: "subgroup-size",
            description: "the subgroup size to declare (a power of two); none: change nothing",
            default: "none",
        }],
        construct: |o| Ok(Box::new(DeclareSubgroupSize::from_options(o)?)),
    },
    PassInfo {
        name: "legalize",
        description: "Rewrite what it can for --target: move Function variables into the \
                      entry block, enforce the Level Zero environment rules (signedness), \
                      split unsupported 2D block and buffer prefetch shapes (or drop \
                      prefetches), declare exactly the capabilities/extensions used; MMAs \
                      are lower-mma's job: legalize warns only about those no pass can lower \
                      (left unchanged)",
        options: &[],
        construct: |o| {
            no_options("legalize", o)?;
            Ok(Box::new(Legalize))
        },
    },
];

/// The passes of `-O`, in order (for the `--target` device).
pub const OPTIMIZE_PIPELINE: &str =
    "raise-builtins,convert-tensor-addressing,lower-mma,legalize,raise-block-io,fuse-block-loads,insert-prefetches,hoist-block-payloads,dce";

/// Passes that work on the native 2D block IO / MMA instructions. On a module that holds
/// calls to the OpenCL builtins instead (what Triton and clang/llvm-spirv emit), the pass
/// manager raises them before such a pass and lowers them back at the end of the pipeline,
/// so the module keeps the form it was given (see `manager::run_pipeline`).
pub const NATIVE_FORM_PASSES: &[&str] = &[
    "raise-block-io",
    "fuse-block-loads",
    "insert-prefetches",
    "hoist-block-payloads",
    "split-block-loads",
    "legalize",
    "lower-mma",
    "convert-tensor-addressing",
];

/// Whether pass `name` works on native ops only (see [`NATIVE_FORM_PASSES`]).
pub fn needs_native_form(name: &str) -> bool {
    NATIVE_FORM_PASSES.contains(&name)
}

/// The registry entry called `name`.
pub fn lookup(name: &str) -> Option<&'static PassInfo> {
    REGISTRY.iter().find(|p| p.name == name)
}

/// `"; did you mean \"X\"?"` for the candidate closest to `word` (a typo: Damerau-Levenshtein
/// distance at most 2, and below half of `word`'s length), else `""`. Unknown pass names and
/// flags get it appended to their error.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    let len = word.chars().count();
    candidates
        .into_iter()
        .map(|c| (strsim::damerau_levenshtein(word, c), c))
        .filter(|&(d, _)| d <= 2 && d * 2 < len)
        .min_by_key(|&(d, _)| d)
        .map_or_else(String::new, |(_, c)| format!("; did you mean \"{c}\"?"))
}

/// An error's text, with a "did you mean" for an unknown pass name close to a registered one
/// (the CLIs print this; the error value itself stays as it is).
pub fn error_text(e: &PassError) -> String {
    match e {
        PassError::UnknownPass(name) => {
            format!("{e}{}", did_you_mean(name, REGISTRY.iter().map(|p| p.name)))
        }
        e => e.to_string(),
    }
}

/// Whether a CLI `--key` belongs to some pass's options.
pub fn option_owner(key: &str) -> Option<&'static PassInfo> {
    REGISTRY
        .iter()
        .find(|p| p.options.iter().any(|o| o.key == key))
}
