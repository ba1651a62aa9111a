//! Shell completions (bash, zsh, fish) and man pages of the tools, generated from the one
//! definition each tool's flags have: its usage text (the `--help` output, whose option lines
//! `    -x, --name VALUE   help` the parser's "did you mean" also reads), plus, for spv-opt,
//! the pass registry (`--PASS` and every pass option). spv-opt keeps a hand-written parser for
//! spirv-opt's conventions (`--PASS`, `-Oconfig=FILE`, `--key=value`), so clap_complete /
//! clap_mangen do not apply; this is their job for that parser. `TOOL --completions SHELL` and
//! `TOOL --man` print them (`spv-opt --completions bash > ~/.local/share/bash-completion/completions/spv-opt`).

/// One flag of a usage text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    /// `-f`, `--force` (as written; `--target-env` without its `=ENV`).
    pub names: Vec<String>,
    /// The value's placeholder (`OUT`, `NAME`, `text|dot`), if the flag takes one.
    pub value: Option<String>,
    /// Whether the value is joined by `=` (`--target-env=ENV`).
    pub joined: bool,
    /// The help text, continuation lines joined.
    pub help: String,
}

/// What a tool's completions and man page are made of.
pub struct Tool<'a> {
    pub program: &'a str,
    /// The whole `--help` text.
    pub usage: &'a str,
    /// More flags than the usage lists (spv-opt: one per pass and pass option).
    pub extra: Vec<Flag>,
    /// Subcommands (`spv-sim run`), completed as the first word.
    pub subcommands: &'a [&'a str],
    /// Values of a flag: `("--target", ["pvc", …])`.
    pub choices: Vec<(&'a str, Vec<String>)>,
    /// Man page sections after OPTIONS: (title, lines).
    pub sections: Vec<(&'a str, String)>,
}

/// The flags of a usage text: lines indented four spaces starting with `-`, the flag words up
/// to the first run of two spaces, the help after it and on the deeper-indented lines below.
/// Placeholders in capitals that stand for many flags (`--PASS`) are left out.
pub fn flags(usage: &str) -> Vec<Flag> {
    let mut out: Vec<Flag> = Vec::new();
    let mut in_flag = false;
    // With an `OPTIONS:` heading, only what follows it (examples above it are not flags).
    let from = usage
        .lines()
        .position(|l| l.trim() == "OPTIONS:")
        .unwrap_or(0);
    for line in usage.lines().skip(from) {
        let indent = line.len() - line.trim_start().len();
        let text = line.trim();
        if indent == 4 && text.starts_with('-') {
            let (spec, help) = match text.find("  ") {
                Some(k) => (&text[..k], text[k..].trim()),
                None => (text, ""),
            };
            let mut f = Flag {
                names: Vec::new(),
                value: None,
                joined: false,
                help: help.to_string(),
            };
            for word in spec.split_whitespace() {
                let word = word.trim_end_matches(',');
                if word.starts_with('-') {
                    match word.split_once('=') {
                        Some((name, value)) => {
                            f.names.push(name.to_string());
                            f.value = Some(value.to_string());
                            f.joined = true;
                        }
                        None => f.names.push(word.to_string()),
                    }
                } else {
                    f.value = Some(word.to_string());
                }
            }
            f.names.retain(|n| {
                let body = n.trim_start_matches('-');
                body.len() <= 1 || body.chars().any(|c| c.is_ascii_lowercase())
            });
            in_flag = !f.names.is_empty();
            if in_flag {
                out.push(f);
            }
        } else if in_flag && indent > 4 && !text.is_empty() {
            if let Some(f) = out.last_mut() {
                if !f.help.is_empty() {
                    f.help.push(' ');
                }
                f.help.push_str(text);
            }
        } else {
            in_flag = false;
        }
    }
    out
}

impl Tool<'_> {
    fn all_flags(&self) -> Vec<Flag> {
        let mut v = flags(self.usage);
        for e in &self.extra {
            if !v.iter().any(|f| f.names == e.names) {
                v.push(e.clone());
            }
        }
        v
    }

    fn choices_of(&self, f: &Flag) -> Option<&[String]> {
        self.choices
            .iter()
            .find(|(name, _)| f.names.iter().any(|n| n == name))
            .map(|(_, c)| c.as_slice())
    }

    /// The completion script for `shell` (`bash`, `zsh` or `fish`).
    pub fn completions(&self, shell: &str) -> Result<String, String> {
        match shell {
            "bash" => Ok(self.bash()),
            "zsh" => Ok(self.zsh()),
            "fish" => Ok(self.fish()),
            other => Err(format!(
                "--completions {other}: expected bash, zsh or fish{}",
                spvopt_passes::registry::did_you_mean(other, ["bash", "zsh", "fish"])
            )),
        }
    }

    fn function_name(&self) -> String {
        format!("_{}", self.program.replace('-', "_"))
    }

    fn bash(&self) -> String {
        let flags = self.all_flags();
        let mut words: Vec<String> = Vec::new();
        for f in &flags {
            for n in &f.names {
                words.push(if f.joined { format!("{n}=") } else { n.clone() });
            }
        }
        let mut cases = String::new();
        for f in flags.iter().filter(|f| f.value.is_some() && !f.joined) {
            let pattern = f.names.join("|");
            let action = match self.choices_of(f) {
                Some(c) => format!("COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))", c.join(" ")),
                None => "COMPREPLY=($(compgen -f -- \"$cur\"))".to_string(),
            };
            cases.push_str(&format!("        {pattern}) {action}; return ;;\n"));
        }
        let subcommands = if self.subcommands.is_empty() {
            String::new()
        } else {
            format!(
                "    if [ \"$COMP_CWORD\" -eq 1 ] && [[ \"$cur\" != -* ]]; then\n        \
                 COMPREPLY=($(compgen -W \"{}\" -- \"$cur\")); return\n    fi\n",
                self.subcommands.join(" ")
            )
        };
        format!(
            "# bash completion for {p} (generated by `{p} --completions bash`)\n\
             {fun}() {{\n    local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" \
             prev=\"${{COMP_WORDS[COMP_CWORD-1]}}\"\n    case \"$prev\" in\n{cases}    esac\n\
             {subcommands}    if [[ \"$cur\" == -* ]]; then\n        \
             COMPREPLY=($(compgen -W \"{words}\" -- \"$cur\"))\n        \
             [[ \"${{COMPREPLY[0]}}\" == *= ]] && compopt -o nospace\n        return\n    fi\n    \
             COMPREPLY=($(compgen -f -- \"$cur\"))\n}}\ncomplete -o filenames -F {fun} {p}\n",
            p = self.program,
            fun = self.function_name(),
            words = words.join(" "),
        )
    }

    fn zsh(&self) -> String {
        let esc = |s: &str| {
            s.replace('\\', "\\\\")
                .replace('\'', "'\\''")
                .replace('[', "\\[")
                .replace(']', "\\]")
                .replace(':', "\\:")
        };
        let mut specs = Vec::new();
        for f in self.all_flags() {
            let help = esc(&first_sentence(&f.help));
            let action = match (&f.value, self.choices_of(&f)) {
                (None, _) => String::new(),
                (Some(v), Some(c)) => format!(":{}:({})", esc(v), c.join(" ")),
                (Some(v), None) => format!(":{}:_files", esc(v)),
            };
            for n in &f.names {
                let name = if f.joined { format!("{n}=") } else { n.clone() };
                specs.push(format!("    '{name}[{help}]{action}'"));
            }
        }
        let rest = if self.subcommands.is_empty() {
            "    '*:file:_files'".to_string()
        } else {
            format!(
                "    '1:command:({})'\n    '*:file:_files'",
                self.subcommands.join(" ")
            )
        };
        format!(
            "#compdef {p}\n# zsh completion for {p} (generated by `{p} --completions zsh`)\n\
             _arguments -s \\\n{} \\\n{rest}\n",
            specs.join(" \\\n"),
            p = self.program,
        )
    }

    fn fish(&self) -> String {
        let esc = |s: &str| s.replace('\\', "\\\\").replace('\'', "\\'");
        let mut out = format!(
            "# fish completion for {p} (generated by `{p} --completions fish`)\n",
            p = self.program
        );
        if !self.subcommands.is_empty() {
            out.push_str(&format!(
                "complete -c {} -n __fish_use_subcommand -f -a '{}'\n",
                self.program,
                self.subcommands.join(" ")
            ));
        }
        for f in self.all_flags() {
            let mut line = format!("complete -c {}", self.program);
            let mut named = false;
            for n in &f.names {
                if let Some(long) = n.strip_prefix("--") {
                    line.push_str(&format!(" -l {long}"));
                    named = true;
                } else if let Some(short) = n.strip_prefix('-').filter(|s| s.len() == 1) {
                    line.push_str(&format!(" -s {short}"));
                    named = true;
                } else if let Some(old) = n.strip_prefix('-') {
                    line.push_str(&format!(" -o {old}"));
                    named = true;
                }
            }
            if !named {
                continue;
            }
            if f.value.is_some() {
                line.push_str(" -r");
                if let Some(c) = self.choices_of(&f) {
                    line.push_str(&format!(" -f -a '{}'", c.join(" ")));
                }
            }
            line.push_str(&format!(" -d '{}'\n", esc(&first_sentence(&f.help))));
            out.push_str(&line);
        }
        out
    }

    /// The man page (roff, section 1).
    pub fn man(&self) -> String {
        let mut lines = self.usage.lines();
        let title = lines.next().unwrap_or(self.program);
        let summary = title.split_once(" — ").map_or(title, |(_, s)| s);
        let mut synopsis = Vec::new();
        let mut description = Vec::new();
        let mut section = "";
        let mut in_option = false;
        for line in self.usage.lines().skip(1) {
            let t = line.trim();
            // Option lines and their continuations go to OPTIONS, not to the description.
            let indent = line.len() - line.trim_start().len();
            if indent == 4 && t.starts_with('-') && section != "synopsis" {
                in_option = true;
                continue;
            }
            if in_option && indent > 4 {
                continue;
            }
            in_option = false;
            let lower = t.to_ascii_lowercase();
            if lower == "usage:" || lower == "options:" || lower.starts_with("usage: ") {
                section = if lower.starts_with("usage") {
                    "synopsis"
                } else {
                    "options"
                };
                if let Some(rest) = t.strip_prefix("usage: ") {
                    synopsis.push(rest.to_string());
                }
                continue;
            }
            match section {
                "synopsis" if line.starts_with("    ") || line.starts_with("       ") => {
                    synopsis.push(t.to_string())
                }
                "synopsis" | "" | "done" if !t.is_empty() && !line.starts_with("    -") => {
                    section = "done";
                    description.push(t.to_string());
                }
                "synopsis" | "done" if t.is_empty() => {
                    section = "done";
                    description.push(String::new());
                }
                _ => {}
            }
        }
        let upper = self.program.to_ascii_uppercase();
        let mut s = format!(
            ".TH {upper} 1 \"\" \"{} {}\" \"User Commands\"\n.SH NAME\n{} \\- {}\n",
            self.program,
            env!("CARGO_PKG_VERSION"),
            roff(self.program),
            roff(summary)
        );
        s.push_str(".SH SYNOPSIS\n");
        for l in synopsis.iter().filter(|l| !l.is_empty()) {
            s.push_str(&format!(".nf\n{}\n.fi\n", roff(l)));
        }
        s.push_str(".SH DESCRIPTION\n");
        for paragraph in description.split(String::is_empty) {
            if !paragraph.is_empty() {
                s.push_str(&format!(".PP\n{}\n", roff(&paragraph.join(" "))));
            }
        }
        s.push_str(".SH OPTIONS\n");
        for f in self.all_flags() {
            let mut head = f.names.join(", ");
            if let Some(v) = &f.value {
                head.push_str(if f.joined { "=" } else { " " });
                head.push_str(v);
            }
            s.push_str(&format!(".TP\n.B {}\n{}\n", roff(&head), roff(&f.help)));
        }
        for (title, body) in &self.sections {
            s.push_str(&format!(".SH {}\n", title.to_ascii_uppercase()));
            for l in body.lines() {
                s.push_str(&format!("{}\n", roff(l)));
                s.push_str(".br\n");
            }
        }
        s
    }
}

/// The help text up to its first `;` or `(`, for one-line completion descriptions.
fn first_sentence(help: &str) -> String {
    let cut = help.find(['(', ';']).unwrap_or(help.len());
    let s = help[..cut].trim();
    if s.is_empty() { help } else { s }.to_string()
}

/// Text as roff: backslashes and hyphens escaped, no line starting with a control character.
fn roff(text: &str) -> String {
    let s = text.replace('\\', "\\e").replace('-', "\\-");
    if s.starts_with('.') || s.starts_with('\'') {
        format!("\\&{s}")
    } else {
        s
    }
}

/// Handles `--completions SHELL` and `--man` anywhere in `args`: `Some(exit code)` when one
/// was given (the output printed), `None` otherwise.
pub fn handle(args: &[String], tool: impl FnOnce() -> Tool<'static>) -> Option<i32> {
    let k = args
        .iter()
        .position(|a| a == "--man" || a == "--completions" || a.starts_with("--completions="))?;
    let t = tool();
    let program = t.program;
    let text = if args[k] == "--man" {
        Ok(t.man())
    } else {
        let shell = match args[k].strip_prefix("--completions=") {
            Some(s) => Some(s.to_string()),
            None => args.get(k + 1).cloned(),
        };
        match shell {
            Some(s) => t.completions(&s),
            None => Err("--completions needs a shell: bash, zsh or fish".into()),
        }
    };
    Some(match text {
        Ok(text) => match crate::io::write_stdout(text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("{program}: error: {e}");
                1
            }
        },
        Err(e) => {
            eprintln!("{program}: error: {e}");
            1
        }
    })
}

/// A flag that takes `value`, for the `extra` of a [`Tool`].
pub fn flag(name: &str, value: Option<&str>, help: &str) -> Flag {
    Flag {
        names: vec![name.to_string()],
        value: value.map(String::from),
        joined: false,
        help: help.to_string(),
    }
}

/// spv-ab's (its flags are all in its usage; `bisect` is its subcommand).
pub fn ab_tool() -> Tool<'static> {
    Tool {
        program: "spv-ab",
        usage: crate::ab::USAGE,
        extra: vec![
            flag(
                "--a",
                Some("PIPELINE"),
                "pipeline A (a pipeline string, -O or O for -O)",
            ),
            flag("--b", Some("PIPELINE"), "pipeline B"),
        ],
        subcommands: &["bisect"],
        choices: vec![
            (
                "--target",
                spvopt_analysis::Target::all()
                    .into_iter()
                    .map(|t| t.name)
                    .collect(),
            ),
            (
                "--completions",
                vec!["bash".into(), "zsh".into(), "fish".into()],
            ),
        ],
        sections: vec![(
            "exit status",
            "0 every kernel equivalent; 1 a kernel differs or failed; 2 usage error".into(),
        )],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_read_from_option_lines() {
        let usage = "x — y\n\nOPTIONS:\n    -f, --force             write it\n                            \
                     anyway\n    --target-env=ENV        env\n    --PASS                  a pass\n    \
                     --format text|dot       form\n\nmore text\n";
        let f = flags(usage);
        assert_eq!(f.len(), 3, "{f:?}");
        assert_eq!(f[0].names, ["-f", "--force"]);
        assert_eq!(f[0].help, "write it anyway");
        assert_eq!(f[1].names, ["--target-env"]);
        assert!(f[1].joined);
        assert_eq!(f[2].value.as_deref(), Some("text|dot"));
    }

    #[test]
    fn roff_escapes() {
        assert_eq!(roff(".x -y \\z"), "\\&.x \\-y \\ez");
    }
}
