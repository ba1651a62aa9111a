//! The modes of spv-opt that run no pass and write no module: `--print-analysis` (an analysis
//! of the input as an annotated listing or a Graphviz graph, on stdout) and `--check-env` (the
//! input's Level Zero environment violations, on stderr; an error when there is one).

use spvopt_analysis::Target;
use spvopt_ir::text::TargetEnv;
use spvopt_passes::diagnostic::render::Renderer;
use spvopt_passes::messages::Names;

use super::Failure;
use crate::io;

/// `--print-analysis NAME`: analysis `name` of `input` as an annotated listing, or (`dot`) as a
/// Graphviz graph.
pub(super) fn print_analysis(
    input: &str,
    env: Option<TargetEnv>,
    name: &str,
    dot: bool,
) -> Result<(), Failure> {
    let bytes = io::to_binary(io::read_input(input)?, input, env)?;
    let module = spvopt_ir::load_bytes(&bytes).map_err(|e| format!("{input}: {e}"))?;
    let mut analyses = spvopt_analysis::Analyses::new();
    let listing = if dot {
        spvopt_analysis::dot::dot(&module, name, &mut analyses).map_err(|e| e.to_string())?
    } else {
        let lines = spvopt_analysis::print::annotate_lines(&module, name, &mut analyses)
            .map_err(|e| e.to_string())?;
        crate::named_listing::named_listing(&module, &lines)
    };
    Ok(io::write_stdout(listing.as_bytes())?)
}

/// `--check-env`: the Level Zero environment violations of `input` for `target`, one line (or,
/// with `json`, one JSON object) each; an error when there is one.
pub(super) fn check_env(
    input: &str,
    env: Option<TargetEnv>,
    target: &Target,
    json: bool,
) -> Result<(), Failure> {
    let bytes = io::to_binary(io::read_input(input)?, input, env)?;
    let module = spvopt_ir::load_bytes(&bytes).map_err(|e| format!("{input}: {e}"))?;
    let mut violations = spvopt_passes::legalize::level_zero_env::check(&module);
    violations.extend(spvopt_passes::legalize::subgroup_size::check(
        &module, target,
    ));
    let names = Names::build(&module);
    let r = Renderer::with_names(&names);
    for v in &violations {
        if json {
            let mut v = r.json(v);
            v["file"] = input.into();
            eprintln!("{v}");
        } else {
            eprintln!("{input}: {}", r.text(v));
        }
    }
    if violations.is_empty() {
        eprintln!(
            "spv-opt: {input}: no Level Zero environment violations ({} instructions checked)",
            module.instruction_count()
        );
        return Ok(());
    }
    Err(Failure::from(format!(
        "{input}: {} Level Zero environment violation(s)",
        violations.len()
    )))
}
