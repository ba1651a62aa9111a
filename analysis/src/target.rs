//! Target devices. For now a target is its name (recorded from `--target`); the per-device
//! tables (subgroup sizes, 2D block shapes, MMA shapes, …) arrive with the legalize work.

/// The device a pipeline optimizes for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub name: String,
}

impl Default for Target {
    fn default() -> Self {
        Target {
            name: "generic".to_string(),
        }
    }
}

impl Target {
    /// The target called `name`.
    pub fn named(name: &str) -> Target {
        Target {
            name: name.to_string(),
        }
    }
}
