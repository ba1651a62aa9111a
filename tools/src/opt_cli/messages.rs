//! What spv-opt's messages are made of: warnings (stderr, `-q`, `--Werror`, JSON), the
//! input's `OpName`s for naming ids, and the disassembly diffs of `--print-changed`.

use spvopt_ir::text;
use spvopt_ir::Module;
use spvopt_passes::diagnostic::render::Renderer;
use spvopt_passes::messages::Names;
use spvopt_passes::Diagnostic;

/// The disassembly of `m`, or a one-line note why there is none.
pub(super) fn disassemble_or_note(m: &Module) -> String {
    text::disassemble(&m.to_words()).unwrap_or_else(|e| format!("; (cannot disassemble: {e})\n"))
}

/// Where warnings go: stderr as `spv-opt: warning: …` (none with `-q`), or with `--Werror`
/// as errors that stop the run before anything is written.
pub(super) struct Warnings {
    pub(super) quiet: bool,
    pub(super) werror: bool,
    /// `--diagnostics-format json`: one JSON object per line.
    pub(super) json: bool,
    pub(super) count: usize,
}

impl Warnings {
    /// A warning given as text.
    pub(super) fn emit(&mut self, line: &str) {
        if self.json {
            self.emit_json(Renderer::PLAIN.json(&Diagnostic::warning(None, line)));
            return;
        }
        self.count += 1;
        if self.werror {
            eprintln!("spv-opt: error: {line} [--Werror]");
        } else if !self.quiet {
            eprintln!("spv-opt: warning: {line}");
        }
    }

    /// A warning as a JSON diagnostic (`--Werror` makes its level `error`).
    pub(super) fn emit_json(&mut self, mut v: serde_json::Value) {
        self.count += 1;
        if self.werror {
            v["level"] = "error".into();
            v["werror"] = true.into();
            eprintln!("{v}");
        } else if !self.quiet {
            eprintln!("{v}");
        }
    }

    /// With `--Werror` and a warning so far: the error that ends the run.
    pub(super) fn stop_if_errors(&self) -> Result<(), String> {
        match (self.werror, self.count) {
            (false, _) | (true, 0) => Ok(()),
            (true, 1) => Err("1 warning treated as an error (--Werror): nothing written".into()),
            (true, n) => Err(format!(
                "{n} warnings treated as errors (--Werror): nothing written"
            )),
        }
    }
}

/// The input's `OpName`s for messages: the `OpName` instructions are copied from the loaded
/// module before any pass runs (a module of its debug section only), and the name table is
/// built from them on first use: most runs print no message, and on a large module the table
/// costs about a third of a no-op run.
pub(super) struct InputNames {
    debug: spvopt_ir::Module,
    names: std::cell::OnceCell<Names>,
}

impl InputNames {
    pub(super) fn new(m: &spvopt_ir::Module) -> InputNames {
        use spvopt_ir::Section;
        let mut debug = spvopt_ir::Module::new(m.header.version);
        for (_, inst) in m.section_insts(Section::Debug) {
            if inst.is(spvopt_ir::spirv::Op::Name) {
                debug.push_to_section(Section::Debug, inst);
            }
        }
        InputNames {
            debug,
            names: std::cell::OnceCell::new(),
        }
    }

    fn names(&self) -> &Names {
        self.names.get_or_init(|| Names::build(&self.debug))
    }

    /// Free text with its ids named (spirv-val's messages).
    pub(super) fn annotate(&self, message: &str) -> String {
        self.names().annotate(message)
    }

    /// The renderer naming ids with the input's names.
    pub(super) fn renderer(&self) -> Renderer<'_> {
        Renderer::with_names(self.names())
    }
}

/// A unified diff (`--- before`, `+++ after PASS`, 3 lines of context) of two disassemblies.
pub(super) fn unified_diff(before: &str, after: &str, pass: &str) -> String {
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header("before", &format!("after {pass}"))
        .to_string()
}
