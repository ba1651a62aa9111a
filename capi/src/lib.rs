//! `spvopt-capi`: the C API of spv-opt, for drivers that optimize kernels in-process.
//!
//! Shaped like SPIRV-Tools' optimizer C API (`spvOptimizerCreate`,
//! `spvOptimizerRegisterPassFromFlag`, `spvOptimizerRun`, `spvOptimizerDestroy`) so a driver
//! can switch with little change: create an optimizer for a target, register passes by flag or
//! pipeline string (`-O` included), set options, run it on words → words, receive warnings and
//! errors through a message callback (one line of text each) and/or a diagnostic callback (the
//! same reports as [`SpvoptDiagnostic`] structs: level, source, opcode, result / function /
//! block ids, message), optionally get per-pass statistics as JSON, destroy it. Both callbacks
//! are fed from the same typed diagnostics through spv-opt's one renderer
//! (`spvopt_passes::diagnostic::render`), so a text line is exactly what the CLI prints.
//! The header `include/spvopt.h` is generated from this file by cbindgen (a test keeps it in
//! sync); start reading at [`spvopt_optimizer_create`].
//!
//! ABI rules: every function returns an [`SpvoptResult`] code (or, for destroy functions,
//! nothing) and never unwinds across the boundary (a panic is caught and reported as
//! `SPVOPT_ERROR_INTERNAL` with its message). Objects returned by the library are freed by
//! their `*_destroy` function, never by `free`. There is no global mutable state. Several
//! optimizers may be used concurrently from different threads; one optimizer may be *run* from
//! several threads at once (`spvopt_optimizer_run` takes a const pointer; the message callback
//! must then be thread-safe), but must not be configured while it runs. [`spvopt_abi_version`]
//! changes whenever a signature or a struct layout changes; new functions may be added without a
//! change.

// The C-facing constants keep C spelling (SPVOPT_SUCCESS, ...).
#![allow(non_camel_case_types)]

use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use spvopt_analysis::Target;
use spvopt_ir::text::{self, TargetEnv};
use spvopt_ir::Module;
use spvopt_passes::diagnostic::render::Renderer;
use spvopt_passes::messages::Names;
use spvopt_passes::{registry, Diagnostic, Level, Optimizer, PassError, Pipeline};

/// Result codes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpvoptResult {
    SPVOPT_SUCCESS = 0,
    /// A null pointer, an unknown target, pass, option or environment.
    SPVOPT_ERROR_INVALID_ARGUMENT = 1,
    /// The input words are not a SPIR-V module our loader accepts.
    SPVOPT_ERROR_INVALID_BINARY = 2,
    /// Validation of the input (when enabled) failed.
    SPVOPT_ERROR_VALIDATION = 3,
    /// A pass could not transform the module (nothing is returned).
    SPVOPT_ERROR_PASS = 4,
    /// A bug in spv-opt (a caught panic); the message says where.
    SPVOPT_ERROR_INTERNAL = 5,
}
use SpvoptResult::*;

/// Severity of a message passed to the message callback.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpvoptMessageLevel {
    SPVOPT_MESSAGE_ERROR = 1,
    SPVOPT_MESSAGE_WARNING = 2,
}

/// Message callback: severity, source (pass name, `load`, `validate`, `options`), one-line
/// text with the location, and the user data given with it. Strings live only for the call.
pub type SpvoptMessageConsumer = Option<
    unsafe extern "C" fn(
        level: SpvoptMessageLevel,
        source: *const c_char,
        message: *const c_char,
        user_data: *mut c_void,
    ),
>;

/// One diagnostic, as the diagnostic callback receives it. Strings live only for the call; an
/// unknown id is 0, an unknown opcode null.
#[repr(C)]
pub struct SpvoptDiagnostic {
    pub level: SpvoptMessageLevel,
    /// What reports it: the pass name, `load`, `validate`, `options` or `internal` (the
    /// message callback's `source`).
    pub source: *const c_char,
    /// The opcode name of the instruction it points at (`"OpFunctionCall"`), or null when it
    /// points at no instruction.
    pub opcode: *const c_char,
    /// The instruction's result id (0: none or unknown).
    pub result_id: u32,
    /// The result id of the function holding the instruction (0: module scope or unknown).
    pub function_id: u32,
    /// The label id of the block holding the instruction (0: module scope or unknown).
    pub block_id: u32,
    /// What it says, without the location (ids in it followed by their `OpName`s).
    pub message: *const c_char,
    /// How many warnings saying `message` it stands for (repeated warnings of a pass are one
    /// diagnostic, at the first one's location); 1 otherwise.
    pub count: u32,
    /// For an error of a pass that found several problems, what they have in common
    /// (`"2 problem(s) cannot be fixed for target dg2"`); null otherwise.
    pub summary: *const c_char,
}

/// Diagnostic callback: one [`SpvoptDiagnostic`] (valid only for the call) and the user data
/// given with it.
pub type SpvoptDiagnosticConsumer =
    Option<unsafe extern "C" fn(diagnostic: *const SpvoptDiagnostic, user_data: *mut c_void)>;

/// An optimized module: `word_count` words at `code`. Free with [`spvopt_binary_destroy`].
#[repr(C)]
pub struct SpvoptBinary {
    pub code: *mut u32,
    pub word_count: usize,
}

/// An optimizer: a target, a pipeline and options. Opaque to C.
pub struct SpvoptOptimizer {
    target: Target,
    /// Registered pipeline pieces, in order (each already checked to parse).
    pipeline: Vec<String>,
    /// Pass options given as flags (`--prefetch-distance=3`), applied to every pass taking them.
    options: Vec<(String, String)>,
    /// `--max-changes=N`: rewrites allowed per pass (as `spv-opt --max-changes`).
    max_changes: Option<u64>,
    validate: bool,
    /// Validate the output of a valid input (on by default; only with `validate`).
    validate_output: bool,
    target_env: Option<TargetEnv>,
    consumer: SpvoptMessageConsumer,
    user_data: *mut c_void,
    diagnostic_consumer: SpvoptDiagnosticConsumer,
    diagnostic_user_data: *mut c_void,
    /// The pipeline prepared on the first run (parsed, options applied), reused by every later
    /// run; reset by every registration (which needs `&mut`, so never during a run).
    prepared: OnceLock<Result<Optimizer, String>>,
}

// SAFETY: the raw user-data pointer is only handed back to the user's callback; the API
// documents that a callback used by concurrent runs must be thread-safe.
unsafe impl Send for SpvoptOptimizer {}
// SAFETY: `spvopt_optimizer_run` reads the optimizer only (see above for the callback).
unsafe impl Sync for SpvoptOptimizer {}

/// A C string of `s` (a NUL inside becomes a space).
fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).unwrap_or_default()
}

/// One report for the callbacks: the line the message callback gets, and the diagnostics (with
/// their counts) the diagnostic callback gets.
struct Report<'a> {
    source: &'a str,
    line: String,
    diagnostics: Vec<(Diagnostic, u32)>,
    summary: Option<String>,
}

impl Report<'_> {
    /// An error or warning that is only text (no location): the same text both ways.
    fn text(level: Level, source: &str, message: String) -> Report<'_> {
        Report {
            source,
            diagnostics: vec![(
                Diagnostic {
                    level,
                    at: None,
                    message: message.clone(),
                },
                1,
            )],
            line: message,
            summary: None,
        }
    }

    /// A pass error: its one line and its diagnostics, ids named as `r` names them.
    fn pass_error(e: &PassError, r: &Renderer<'_>) -> Report<'static> {
        let line = e.render(r);
        match e {
            PassError::Failed {
                pass,
                summary,
                diagnostics,
            } if !diagnostics.is_empty() => Report {
                source: pass,
                line,
                diagnostics: diagnostics
                    .iter()
                    .map(|d| {
                        let mut d = d.clone();
                        d.message = r.message(&d.message);
                        (d, 1)
                    })
                    .collect(),
                summary: summary.as_deref().map(|s| r.message(s)),
            },
            _ => Report::text(Level::Error, "pass", line),
        }
    }
}

impl SpvoptOptimizer {
    /// A message that is only text, to both callbacks.
    fn emit(&self, level: SpvoptMessageLevel, source: &str, message: &str) {
        let level = match level {
            SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR => Level::Error,
            SpvoptMessageLevel::SPVOPT_MESSAGE_WARNING => Level::Warning,
        };
        self.report(&Report::text(level, source, message.to_string()));
    }

    /// `r` to the message callback (its line, at the level of its first diagnostic) and to the
    /// diagnostic callback (each diagnostic).
    fn report(&self, r: &Report<'_>) {
        let level = |l: Level| match l {
            Level::Error => SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR,
            Level::Warning | Level::Note => SpvoptMessageLevel::SPVOPT_MESSAGE_WARNING,
        };
        let source = c_string(r.source);
        if let Some(f) = self.consumer {
            let first = r.diagnostics.first().map_or(Level::Error, |(d, _)| d.level);
            let line = c_string(&r.line);
            // SAFETY: the user registered `f` for this purpose; the strings outlive the call.
            unsafe { f(level(first), source.as_ptr(), line.as_ptr(), self.user_data) }
        }
        let Some(f) = self.diagnostic_consumer else {
            return;
        };
        let summary = r.summary.as_deref().map(c_string);
        for (d, count) in &r.diagnostics {
            let at = d.at.clone().unwrap_or_default();
            let opcode = at.opcode.as_deref().map(c_string);
            let message = c_string(&d.message);
            let word = |id: Option<spvopt_ir::Id>| id.map_or(0, |id| id.word());
            let c = SpvoptDiagnostic {
                level: level(d.level),
                source: source.as_ptr(),
                opcode: opcode.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
                result_id: word(at.result),
                function_id: word(at.function),
                block_id: word(at.block),
                message: message.as_ptr(),
                count: *count,
                summary: summary.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            };
            // SAFETY: as above; `c` and its strings outlive the call.
            unsafe { f(&c, self.diagnostic_user_data) }
        }
    }

    fn build_pipeline(&self) -> Result<Pipeline, String> {
        let mut p = Pipeline::new();
        for piece in &self.pipeline {
            p.extend_from_str(piece)
                .map_err(|e| spvopt_passes::registry::error_text(&e))?;
        }
        for (k, v) in &self.options {
            if k == spvopt_passes::declare_subgroup_size::OPTION {
                p.declare_subgroup_size(v)
                    .map_err(|e| format!("--{k}={v}: {e}"))?;
                continue;
            }
            if !p
                .steps
                .iter()
                .any(|s| s.info.options.iter().any(|o| o.key == k))
            {
                return Err(format!("--{k} given but no registered pass takes it"));
            }
            p.set_option(k, v);
        }
        if let Some(n) = self.max_changes {
            p.set_max_changes(n);
        }
        Ok(p)
    }
}

/// Runs `f`, turning a panic into `SPVOPT_ERROR_INTERNAL`.
fn guarded(f: impl FnOnce() -> SpvoptResult) -> SpvoptResult {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(SPVOPT_ERROR_INTERNAL)
}

/// Applies `f` to the optimizer at `opt`: `SPVOPT_ERROR_INVALID_ARGUMENT` for null.
///
/// # Safety
/// `opt` is null or a live optimizer not being run.
unsafe fn configure(
    opt: *mut SpvoptOptimizer,
    f: impl FnOnce(&mut SpvoptOptimizer),
) -> SpvoptResult {
    guarded(|| {
        // SAFETY: guaranteed by the caller.
        let Some(o) = (unsafe { opt.as_mut() }) else {
            return SPVOPT_ERROR_INVALID_ARGUMENT;
        };
        f(o);
        SPVOPT_SUCCESS
    })
}

/// A C string argument; `None` for null or non-UTF-8.
///
/// # Safety
/// `p` is null or points to a NUL-terminated string.
unsafe fn arg<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: guaranteed by the caller.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// The library version (`"0.1.0"`), a static string.
#[no_mangle]
pub extern "C" fn spvopt_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

include!("abi_version.rs");

/// The ABI version: changes whenever a signature or struct layout of this API changes (also the
/// shared library's SONAME, `libspvopt.so.N`).
#[no_mangle]
pub extern "C" fn spvopt_abi_version() -> u32 {
    ABI_VERSION
}

/// Creates an optimizer for `target` (`"pvc"`, `"dg2"`, … or null for `generic`) into `*out`.
/// Validation of the input is on by default (as in spv-opt). On error `*out` is set to null
/// (unless `out` itself is null), so destroying it is always safe.
///
/// # Safety
/// `target` is null or a NUL-terminated string; `out` points to writable storage.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_create(
    target: *const c_char,
    out: *mut *mut SpvoptOptimizer,
) -> SpvoptResult {
    if out.is_null() {
        return SPVOPT_ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: `out` is writable per the contract. Null until the optimizer exists, whatever
    // fails (a panic included).
    unsafe { *out = std::ptr::null_mut() };
    guarded(|| {
        // SAFETY: per the contract.
        let target = match unsafe { arg(target) } {
            None if !target.is_null() => return SPVOPT_ERROR_INVALID_ARGUMENT,
            None => Target::default(),
            Some(name) => match Target::by_name(name) {
                Ok(t) => t,
                Err(_) => return SPVOPT_ERROR_INVALID_ARGUMENT,
            },
        };
        let o = Box::new(SpvoptOptimizer {
            target,
            pipeline: Vec::new(),
            options: Vec::new(),
            max_changes: None,
            validate: true,
            validate_output: true,
            target_env: None,
            consumer: None,
            user_data: std::ptr::null_mut(),
            diagnostic_consumer: None,
            diagnostic_user_data: std::ptr::null_mut(),
            prepared: OnceLock::new(),
        });
        // SAFETY: `out` is writable per the contract.
        unsafe { *out = Box::into_raw(o) };
        SPVOPT_SUCCESS
    })
}

/// Destroys an optimizer (null is allowed).
///
/// # Safety
/// `opt` is null or was returned by [`spvopt_optimizer_create`] and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_destroy(opt: *mut SpvoptOptimizer) {
    if !opt.is_null() {
        // SAFETY: per the contract, `opt` came from Box::into_raw.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(opt) })));
    }
}

/// Sets the message callback (null to remove it) and the user data passed to it.
///
/// # Safety
/// `opt` is a live optimizer not being run.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_set_message_consumer(
    opt: *mut SpvoptOptimizer,
    consumer: SpvoptMessageConsumer,
    user_data: *mut c_void,
) -> SpvoptResult {
    // SAFETY: per the contract.
    unsafe {
        configure(opt, |o| {
            o.consumer = consumer;
            o.user_data = user_data;
        })
    }
}

/// Sets the diagnostic callback (null to remove it) and the user data passed to it. It
/// receives every error and warning the message callback receives, as structs: a pass's
/// errors one [`SpvoptDiagnostic`] each (where the message callback gets them joined into one
/// line), repeated warnings as one with their `count`. Both callbacks may be set.
///
/// # Safety
/// `opt` is a live optimizer not being run.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_set_diagnostic_consumer(
    opt: *mut SpvoptOptimizer,
    consumer: SpvoptDiagnosticConsumer,
    user_data: *mut c_void,
) -> SpvoptResult {
    let set = |o: &mut SpvoptOptimizer| {
        (o.diagnostic_consumer, o.diagnostic_user_data) = (consumer, user_data)
    };
    // SAFETY: per the contract.
    unsafe { configure(opt, set) }
}

/// Registers passes by command-line flag, as spv-opt takes them: `"--fuse-block-loads"`,
/// `"-O"`, or a pass option `"--prefetch-distance=3"` (applied to every registered pass that
/// takes it); `"--subgroup-size=16"` declares that size on kernels that declare none, before
/// the other passes (as spv-opt's `--subgroup-size`).
///
/// # Safety
/// `opt` is a live optimizer not being run; `flag` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_register_pass_from_flag(
    opt: *mut SpvoptOptimizer,
    flag: *const c_char,
) -> SpvoptResult {
    guarded(|| {
        // SAFETY: per the contract.
        let (Some(o), Some(flag)) = ((unsafe { opt.as_mut() }), unsafe { arg(flag) }) else {
            return SPVOPT_ERROR_INVALID_ARGUMENT;
        };
        o.prepared = OnceLock::new();
        if flag == "-O" {
            o.pipeline.push("O".into());
            return SPVOPT_SUCCESS;
        }
        let Some(body) = flag.strip_prefix("--") else {
            o.emit(
                SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR,
                "options",
                &format!("not a pass flag: {flag}"),
            );
            return SPVOPT_ERROR_INVALID_ARGUMENT;
        };
        match body.split_once('=') {
            None if registry::lookup(body).is_some() => o.pipeline.push(body.to_string()),
            Some(("max-changes", v)) => match v.parse::<u64>() {
                Ok(n) => o.max_changes = Some(n),
                Err(_) => {
                    o.emit(
                        SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR,
                        "options",
                        &format!("{flag}: not a number of rewrites"),
                    );
                    return SPVOPT_ERROR_INVALID_ARGUMENT;
                }
            },
            Some((k, v)) if registry::option_owner(k).is_some() => {
                o.options.push((k.to_string(), v.to_string()))
            }
            _ => {
                o.emit(
                    SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR,
                    "options",
                    &format!("unknown pass or option {flag}"),
                );
                return SPVOPT_ERROR_INVALID_ARGUMENT;
            }
        }
        SPVOPT_SUCCESS
    })
}

/// Registers the passes of a pipeline string: `"strip-debug,dce"`,
/// `"O,insert-prefetches(prefetch-distance=2)"`.
///
/// # Safety
/// `opt` is a live optimizer not being run; `pipeline` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_register_pipeline(
    opt: *mut SpvoptOptimizer,
    pipeline: *const c_char,
) -> SpvoptResult {
    guarded(|| {
        // SAFETY: per the contract.
        let (Some(o), Some(text)) = ((unsafe { opt.as_mut() }), unsafe { arg(pipeline) }) else {
            return SPVOPT_ERROR_INVALID_ARGUMENT;
        };
        o.prepared = OnceLock::new();
        if let Err(e) = Pipeline::parse(text) {
            o.emit(
                SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR,
                "options",
                &spvopt_passes::registry::error_text(&e),
            );
            return SPVOPT_ERROR_INVALID_ARGUMENT;
        }
        o.pipeline.push(text.to_string());
        SPVOPT_SUCCESS
    })
}

/// Turns validation of the input on (non-zero, the default) or off.
///
/// # Safety
/// `opt` is a live optimizer not being run.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_set_validation(
    opt: *mut SpvoptOptimizer,
    enabled: i32,
) -> SpvoptResult {
    // SAFETY: per the contract.
    unsafe { configure(opt, |o| o.validate = enabled != 0) }
}

/// Turns validation of the output on (non-zero, the default) or off. With validation of the
/// input on (`spvopt_optimizer_set_validation`), the output of a valid input must validate
/// too: an output that does not is `SPVOPT_ERROR_VALIDATION` from source `validate`, the
/// message naming the first pass whose output fails (found by running the pipeline again
/// with validation after each pass, only then), and no binary is returned. Costs one
/// validator run per module.
///
/// # Safety
/// `opt` is a live optimizer not being run.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_set_output_validation(
    opt: *mut SpvoptOptimizer,
    enabled: i32,
) -> SpvoptResult {
    // SAFETY: per the contract.
    unsafe { configure(opt, |o| o.validate_output = enabled != 0) }
}

/// Sets the validation environment (`"spv1.4"`, `"opencl2.2"`, …; null: the universal
/// environment of the module's SPIR-V version, the default).
///
/// # Safety
/// `opt` is a live optimizer not being run; `env` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_set_target_env(
    opt: *mut SpvoptOptimizer,
    env: *const c_char,
) -> SpvoptResult {
    guarded(|| {
        // SAFETY: per the contract.
        let Some(o) = (unsafe { opt.as_mut() }) else {
            return SPVOPT_ERROR_INVALID_ARGUMENT;
        };
        // SAFETY: per the contract.
        o.target_env = match unsafe { arg(env) } {
            None if env.is_null() => None,
            None => return SPVOPT_ERROR_INVALID_ARGUMENT,
            Some(name) => match text::parse_target_env(name) {
                Ok(e) => Some(e),
                Err(e) => {
                    o.emit(
                        SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR,
                        "options",
                        &e.to_string(),
                    );
                    return SPVOPT_ERROR_INVALID_ARGUMENT;
                }
            },
        };
        SPVOPT_SUCCESS
    })
}

/// Runs the registered passes on `word_count` words at `words`. On success `*out` holds the
/// optimized module (free it with [`spvopt_binary_destroy`]) and, when `stats_json` is not
/// null, `*stats_json` the per-pass statistics as JSON (spv-opt's `--stats` format; free it
/// with [`spvopt_string_destroy`]). On error (every result but `SPVOPT_SUCCESS`) `*out` and
/// `*stats_json` are set to null (each unless the pointer itself is null), so destroying them
/// after any run is safe; the message callback receives one line saying what and where, and
/// the diagnostic callback each error of it. The input is never modified.
///
/// # Safety
/// `opt` is a live optimizer; `words` points to `word_count` readable words; `out` (and
/// `stats_json` unless null) point to writable storage.
#[no_mangle]
pub unsafe extern "C" fn spvopt_optimizer_run(
    opt: *const SpvoptOptimizer,
    words: *const u32,
    word_count: usize,
    out: *mut *mut SpvoptBinary,
    stats_json: *mut *mut c_char,
) -> SpvoptResult {
    // Null until the run succeeds, whatever fails (a null optimizer, a panic included).
    if !out.is_null() {
        // SAFETY: writable per the contract.
        unsafe { *out = std::ptr::null_mut() };
    }
    if !stats_json.is_null() {
        // SAFETY: writable per the contract.
        unsafe { *stats_json = std::ptr::null_mut() };
    }
    // SAFETY: per the contract.
    let Some(o) = (unsafe { opt.as_ref() }) else {
        return SPVOPT_ERROR_INVALID_ARGUMENT;
    };
    let result = catch_unwind(AssertUnwindSafe(|| {
        if words.is_null() || out.is_null() {
            return SPVOPT_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: per the contract.
        let input = unsafe { std::slice::from_raw_parts(words, word_count) };
        match optimize(o, input, !stats_json.is_null()) {
            Ok((words, json)) => {
                let mut boxed = words.into_boxed_slice();
                let bin = Box::new(SpvoptBinary {
                    code: boxed.as_mut_ptr(),
                    word_count: boxed.len(),
                });
                std::mem::forget(boxed);
                if let (false, Some(json)) = (stats_json.is_null(), json) {
                    let text = CString::new(json).unwrap_or_default();
                    // SAFETY: writable per the contract.
                    unsafe { *stats_json = text.into_raw() };
                }
                // SAFETY: writable per the contract.
                unsafe { *out = Box::into_raw(bin) };
                SPVOPT_SUCCESS
            }
            Err((code, report)) => {
                o.report(&report);
                code
            }
        }
    }));
    result.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_else(|| "unknown panic".into());
        o.emit(
            SpvoptMessageLevel::SPVOPT_MESSAGE_ERROR,
            "internal",
            &format!("internal error (please report): {what}"),
        );
        SPVOPT_ERROR_INTERNAL
    })
}

type Failure = (SpvoptResult, Report<'static>);

/// A failure that is only text.
fn failure(code: SpvoptResult, source: &'static str, message: String) -> Failure {
    (code, Report::text(Level::Error, source, message))
}

/// The run itself: load, validate, optimize, emit. The statistics JSON is made only when
/// asked for, and `OpName`s are looked up only when there is a message to annotate.
fn optimize(
    o: &SpvoptOptimizer,
    input: &[u32],
    want_stats: bool,
) -> Result<(Vec<u32>, Option<String>), Failure> {
    use SpvoptMessageLevel::SPVOPT_MESSAGE_WARNING as WARNING;
    let optimizer = o
        .prepared
        .get_or_init(|| {
            o.build_pipeline()
                .map(|p| Optimizer::from_pipeline(o.target.clone(), p))
        })
        .as_ref()
        .map_err(|e| failure(SPVOPT_ERROR_INVALID_ARGUMENT, "options", e.clone()))?;
    let mut module = spvopt_ir::load_words(input)
        .map_err(|e| failure(SPVOPT_ERROR_INVALID_BINARY, "load", e.to_string()))?;
    let annotate = |m: &Module, text: &str| Names::build(m).annotate(text);
    if o.validate {
        let env = o
            .target_env
            .unwrap_or_else(|| text::universal_env_for_version(module.header.version));
        match spvopt_passes::validate::validate_module(&module, env) {
            Ok(warnings) if warnings.is_empty() => {}
            Ok(warnings) => {
                let names = Names::build(&module);
                warnings
                    .iter()
                    .for_each(|w| o.emit(WARNING, "validate", &names.annotate(w)));
            }
            Err(e) => {
                let message = annotate(&module, &e);
                return Err(failure(SPVOPT_ERROR_VALIDATION, "validate", message));
            }
        }
    }
    let report = optimizer.run_module(&mut module).map_err(|e| {
        let names = Names::build(&module);
        (
            SPVOPT_ERROR_PASS,
            Report::pass_error(&e, &Renderer::with_names(&names)),
        )
    })?;
    if o.validate && o.validate_output {
        let reload = || spvopt_ir::load_words(input).ok();
        spvopt_passes::validate::check_output(
            &module,
            o.target_env,
            optimizer.pipeline(),
            optimizer.target(),
            reload,
        )
        .map_err(|e| {
            let message = annotate(&module, &e.to_string());
            failure(SPVOPT_ERROR_VALIDATION, "validate", message)
        })?;
    }
    let groups = report.warning_groups();
    if !groups.is_empty() {
        let names = Names::build(&module);
        let r = Renderer::with_names(&names);
        for g in groups {
            let mut d = g.diagnostic();
            d.message = r.message(&g.message);
            o.report(&Report {
                source: g.pass,
                line: g.line_with(&r),
                diagnostics: vec![(d, u32::try_from(g.count).unwrap_or(u32::MAX))],
                summary: None,
            });
        }
    }
    let json = want_stats.then(|| {
        let mut json = report.to_json();
        json["target"] = serde_json::Value::from(o.target.name.clone());
        json.to_string()
    });
    Ok((module.to_words(), json))
}

/// Frees a binary returned by [`spvopt_optimizer_run`] (null is allowed).
///
/// # Safety
/// `bin` is null or came from [`spvopt_optimizer_run`] and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn spvopt_binary_destroy(bin: *mut SpvoptBinary) {
    if bin.is_null() {
        return;
    }
    // SAFETY: per the contract both allocations came from boxes of exactly these sizes.
    unsafe {
        let b = Box::from_raw(bin);
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            b.code,
            b.word_count,
        )));
    }
}

/// Frees a string returned by this library (null is allowed).
///
/// # Safety
/// `s` is null or came from this library and is not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn spvopt_string_destroy(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: per the contract `s` came from CString::into_raw.
        drop(unsafe { CString::from_raw(s) });
    }
}
