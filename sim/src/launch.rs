//! Launch descriptions (`L.json`) and the deterministic `buffer_random` generator.
//!
//! ```json
//! { "kernel": "k", "global_size": [256,1,1], "local_size": [128,1,1],
//!   "args": [ {"buffer": "a.bin"}, {"buffer_zeros": 32768},
//!             {"buffer_random": 8192, "seed": 7, "type": "f16", "range": [-1, 1]},
//!             {"local": 34816}, {"scalar": "u32", "value": 128} ] }
//! ```
//! The full format is documented in `sim/README.md` ("Launch files").
//! Optional top-level fields: `"subgroup_size"` (used when the kernel has no SubgroupSize
//! execution mode; default 16), `"max_steps"` (per-subgroup instruction budget) and
//! `"block_base_alignment"`: the alignment 2D block IO needs of its base (default 64, the
//! extension's; 4 for Xe3P output), `"block_layout"`: `"hardware"` (default) or `"spec"` (how 2D block IO deals rows wider than
//! subgroup-size dwords; see [`crate::block_io_2d`]).
//!
//! `buffer_random: N` is N **bytes** holding `N / size(type)` values (trailing bytes zero).
//! Generator: SplitMix64 with state `seed` (default 0): `state += 0x9E3779B97F4A7C15;
//! z = state; z = (z ^ z>>30) * 0xBF58476D1CE4E5B9; z = (z ^ z>>27) * 0x94D049BB133111EB;
//! z ^ z>>31`, one call per value, values in buffer order. Floats (`f16`, `bf16`, `f32`, `f64`;
//! default range [-1, 1]): `u = (z >> 11) * 2^-53` in [0, 1), `v = lo + (hi - lo) * u` in f64,
//! rounded to the type to nearest even. Integers (`i8..i64`, `u8..u64`; default range the
//! whole type): `lo + z mod (hi - lo + 1)` (computed in 128 bits). Default type `u8`.

use std::path::Path;

use serde_json::Value;

use crate::block_io_2d::BlockLayout;
use crate::error::SimError;
use crate::numeric::{f64_to_bf16, f64_to_f16};

/// One kernel argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// A global buffer with its initial bytes; `ty`/`ulp` say how `compare` may read it.
    Buffer {
        bytes: Vec<u8>,
        ty: Option<String>,
        ulp: Option<u64>,
    },
    /// Work-group local memory of this many bytes per work-group.
    Local(u64),
    /// A scalar by value (little-endian bytes of its type).
    Scalar { ty: String, bytes: Vec<u8> },
}

/// A kernel launch.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub kernel: String,
    pub global_size: [u64; 3],
    pub local_size: [u64; 3],
    pub args: Vec<Arg>,
    /// Subgroup size when the kernel does not fix one (default 16).
    pub subgroup_size: Option<u32>,
    /// Instructions one subgroup may execute before the run fails.
    pub max_steps: u64,
    /// How 2D block IO deals rows wider than subgroup-size dwords (default: hardware).
    pub block_layout: BlockLayout,
    /// Alignment (bytes) 2D block IO needs of its base address: 64 (the extension's rule,
    /// the default) or what the device needs (4 on Xe3P, `spv-opt --target cri`).
    pub block_base_alignment: u64,
}

/// Default per-subgroup step budget.
pub const DEFAULT_MAX_STEPS: u64 = 200_000_000;

fn lerr(msg: impl Into<String>) -> SimError {
    SimError::Launch(msg.into())
}

/// Byte size of a scalar type name.
pub fn type_size(ty: &str) -> Option<usize> {
    Some(match ty {
        "i8" | "u8" => 1,
        "i16" | "u16" | "f16" | "bf16" => 2,
        "i32" | "u32" | "f32" => 4,
        "i64" | "u64" | "f64" => 8,
        _ => return None,
    })
}

/// Argument `i`'s optional `"shape"`: 1 to 4 positive element counts, outermost first
/// (`[rows, columns]` for a row-major matrix); only `compare` reads it, to name positions.
fn shape_of(a: &Value, i: usize) -> Result<Option<Vec<u64>>, SimError> {
    let Some(v) = a.get("shape") else {
        return Ok(None);
    };
    let bad = || lerr(format!("arg {i}: `shape` must be 1 to 4 positive integers"));
    let dims = v
        .as_array()
        .filter(|d| !d.is_empty() && d.len() <= 4)
        .ok_or_else(bad)?
        .iter()
        .map(|x| x.as_u64().filter(|&n| n > 0))
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(bad)?;
    Ok(Some(dims))
}

/// The `"shape"` of every argument of a launch (see the `sim/README.md` launch format), `None`
/// where an argument has none.
pub fn arg_shapes(text: &str) -> Result<Vec<Option<Vec<u64>>>, SimError> {
    let v: Value = serde_json::from_str(text).map_err(|e| lerr(format!("launch JSON: {e}")))?;
    let list = v
        .get("args")
        .and_then(Value::as_array)
        .ok_or_else(|| lerr("`args` (array) is missing"))?;
    list.iter()
        .enumerate()
        .map(|(i, a)| shape_of(a, i))
        .collect()
}

fn size3(v: Option<&Value>, what: &str) -> Result<[u64; 3], SimError> {
    let a = v
        .and_then(Value::as_array)
        .ok_or_else(|| lerr(format!("`{what}` must be an array of 1 to 3 integers")))?;
    if a.is_empty() || a.len() > 3 {
        return Err(lerr(format!("`{what}` must have 1 to 3 entries")));
    }
    let mut r = [1u64; 3];
    for (i, x) in a.iter().enumerate() {
        r[i] = x
            .as_u64()
            .filter(|&v| v > 0)
            .ok_or_else(|| lerr(format!("`{what}` entries must be positive integers")))?;
    }
    Ok(r)
}

/// What a launch asks for, read before anything is allocated or generated: its number of
/// work-groups and the bytes of its global buffers (a `buffer` file by its size on disk). The
/// `spv-sim` CLI checks them against its `--max-work-groups` / `--max-buffer-bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    pub work_groups: u64,
    pub buffer_bytes: u64,
}

/// The [`Footprint`] of launch JSON `text` (buffer files relative to `base_dir`); malformed
/// launches are left to [`Launch::from_json`]'s errors (their footprint counts what is there).
pub fn footprint(text: &str, base_dir: &Path) -> Result<Footprint, SimError> {
    let v: Value = serde_json::from_str(text).map_err(|e| lerr(format!("launch JSON: {e}")))?;
    let global = size3(v.get("global_size"), "global_size")?;
    let local = size3(v.get("local_size"), "local_size")?;
    let work_groups = (0..3).fold(1u64, |n, d| n.saturating_mul(global[d] / local[d]));
    let mut buffer_bytes = 0u64;
    for a in v
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let n = if let Some(f) = a.get("buffer").and_then(Value::as_str) {
            std::fs::metadata(base_dir.join(f)).map_or(0, |m| m.len())
        } else {
            ["buffer_zeros", "buffer_random"]
                .iter()
                .find_map(|k| a.get(*k).and_then(Value::as_u64))
                .unwrap_or(0)
        };
        buffer_bytes = buffer_bytes.saturating_add(n);
    }
    Ok(Footprint {
        work_groups,
        buffer_bytes,
    })
}

/// Encodes a scalar JSON value as `ty`.
pub fn scalar_bytes(ty: &str, v: &Value) -> Result<Vec<u8>, SimError> {
    let bad = || lerr(format!("scalar value {v} does not fit {ty}"));
    let int = || -> Result<i128, SimError> {
        if let Some(x) = v.as_i64() {
            Ok(x as i128)
        } else if let Some(x) = v.as_u64() {
            Ok(x as i128)
        } else if let Some(x) = v.as_f64().filter(|x| x.fract() == 0.0) {
            Ok(x as i128)
        } else {
            Err(bad())
        }
    };
    let f = || v.as_f64().ok_or_else(bad);
    Ok(match ty {
        "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" => {
            let n = type_size(ty).unwrap_or(4);
            let x = int()?;
            let bits = n as u32 * 8;
            let (lo, hi) = if ty.starts_with('i') {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            if x < lo || x > hi {
                return Err(bad());
            }
            (x as u64).to_le_bytes()[..n].to_vec()
        }
        "f16" => f64_to_f16(f()?).to_le_bytes().to_vec(),
        "bf16" => f64_to_bf16(f()?).to_le_bytes().to_vec(),
        "f32" => (f()? as f32).to_le_bytes().to_vec(),
        "f64" => f()?.to_le_bytes().to_vec(),
        _ => return Err(lerr(format!("unknown scalar type `{ty}`"))),
    })
}

/// SplitMix64.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The bytes of `buffer_random` (see the module docs).
pub fn random_bytes(
    n: usize,
    seed: u64,
    ty: &str,
    range: Option<(f64, f64)>,
) -> Result<Vec<u8>, SimError> {
    let size = type_size(ty).ok_or_else(|| lerr(format!("unknown type `{ty}`")))?;
    let mut rng = SplitMix64(seed);
    let mut out = vec![0u8; n];
    let float = ty.starts_with('f') || ty == "bf16";
    for chunk in out.chunks_exact_mut(size) {
        let z = rng.next_u64();
        if float {
            let (lo, hi) = range.unwrap_or((-1.0, 1.0));
            let u = (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
            let v = lo + (hi - lo) * u;
            let b = match ty {
                "f16" => f64_to_f16(v).to_le_bytes().to_vec(),
                "bf16" => f64_to_bf16(v).to_le_bytes().to_vec(),
                "f32" => (v as f32).to_le_bytes().to_vec(),
                _ => v.to_le_bytes().to_vec(),
            };
            chunk.copy_from_slice(&b);
        } else {
            let bits = size as u32 * 8;
            let (tlo, thi) = if ty.starts_with('i') {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            } else {
                (0, (1i128 << bits) - 1)
            };
            let (lo, hi) = match range {
                Some((a, b)) => ((a as i128).max(tlo), (b as i128).min(thi)),
                None => (tlo, thi),
            };
            if hi < lo {
                return Err(lerr("buffer_random: empty range"));
            }
            let span = (hi - lo + 1) as u128;
            let v = lo + (z as u128 % span) as i128;
            chunk.copy_from_slice(&(v as u64).to_le_bytes()[..size]);
        }
    }
    Ok(out)
}

impl Launch {
    /// A launch of `kernel` with default settings (subgroup size from the kernel or 16, default
    /// step budget, hardware block layout).
    pub fn new(
        kernel: &str,
        global_size: [u64; 3],
        local_size: [u64; 3],
        args: Vec<Arg>,
    ) -> Launch {
        Launch {
            kernel: kernel.to_string(),
            global_size,
            local_size,
            args,
            subgroup_size: None,
            max_steps: DEFAULT_MAX_STEPS,
            block_layout: BlockLayout::default(),
            block_base_alignment: crate::block_io_2d::BASE_ALIGNMENT,
        }
    }

    /// Parses a launch; buffer file paths are relative to `base_dir`.
    pub fn from_json(text: &str, base_dir: &Path) -> Result<Launch, SimError> {
        let v: Value = serde_json::from_str(text).map_err(|e| lerr(format!("launch JSON: {e}")))?;
        let kernel = v
            .get("kernel")
            .and_then(Value::as_str)
            .ok_or_else(|| lerr("`kernel` (string) is missing"))?
            .to_string();
        let global_size = size3(v.get("global_size"), "global_size")?;
        let local_size = size3(v.get("local_size"), "local_size")?;
        for d in 0..3 {
            if global_size[d] % local_size[d] != 0 {
                return Err(lerr(format!(
                    "global_size[{d}] {} is not a multiple of local_size[{d}] {}",
                    global_size[d], local_size[d]
                )));
            }
        }
        let mut args = Vec::new();
        let list = v
            .get("args")
            .and_then(Value::as_array)
            .ok_or_else(|| lerr("`args` (array) is missing"))?;
        for (i, a) in list.iter().enumerate() {
            let ty = a.get("type").and_then(Value::as_str).map(str::to_string);
            let ulp = a.get("ulp").and_then(Value::as_u64);
            shape_of(a, i)?;
            let arg = if let Some(f) = a.get("buffer") {
                let f = f
                    .as_str()
                    .ok_or_else(|| lerr(format!("arg {i}: `buffer` must be a path")))?;
                let path = base_dir.join(f);
                let bytes = std::fs::read(&path)
                    .map_err(|e| lerr(format!("arg {i}: {}: {e}", path.display())))?;
                Arg::Buffer { bytes, ty, ulp }
            } else if let Some(n) = a.get("buffer_zeros") {
                let n = n
                    .as_u64()
                    .ok_or_else(|| lerr(format!("arg {i}: `buffer_zeros` must be a size")))?;
                if n > 1 << 32 {
                    return Err(lerr(format!("arg {i}: buffer of {n} bytes is too large")));
                }
                Arg::Buffer {
                    bytes: vec![0; n as usize],
                    ty,
                    ulp,
                }
            } else if let Some(n) = a.get("buffer_random") {
                let n = n
                    .as_u64()
                    .ok_or_else(|| lerr(format!("arg {i}: `buffer_random` must be a size")))?;
                if n > 1 << 32 {
                    return Err(lerr(format!("arg {i}: buffer of {n} bytes is too large")));
                }
                let seed = a.get("seed").and_then(Value::as_u64).unwrap_or(0);
                let range = match a.get("range").and_then(Value::as_array) {
                    Some(r) if r.len() == 2 => Some((
                        r[0].as_f64().ok_or_else(|| lerr("range must be numbers"))?,
                        r[1].as_f64().ok_or_else(|| lerr("range must be numbers"))?,
                    )),
                    Some(_) => return Err(lerr(format!("arg {i}: `range` must be [lo, hi]"))),
                    None => None,
                };
                let t = ty.clone().unwrap_or_else(|| "u8".to_string());
                let bytes = random_bytes(n as usize, seed, &t, range)?;
                Arg::Buffer { bytes, ty, ulp }
            } else if let Some(n) = a.get("local") {
                Arg::Local(
                    n.as_u64()
                        .filter(|&n| n <= 1 << 30)
                        .ok_or_else(|| lerr(format!("arg {i}: `local` must be a size")))?,
                )
            } else if let Some(t) = a.get("scalar") {
                let t = t
                    .as_str()
                    .ok_or_else(|| lerr(format!("arg {i}: `scalar` must be a type name")))?;
                let value = a
                    .get("value")
                    .ok_or_else(|| lerr(format!("arg {i}: scalar without `value`")))?;
                Arg::Scalar {
                    ty: t.to_string(),
                    bytes: scalar_bytes(t, value)?,
                }
            } else {
                return Err(lerr(format!(
                    "arg {i}: expected buffer, buffer_zeros, buffer_random, local or scalar"
                )));
            };
            args.push(arg);
        }
        let block_layout = match v.get("block_layout") {
            None => BlockLayout::default(),
            Some(b) => b.as_str().and_then(BlockLayout::parse).ok_or_else(|| {
                lerr(format!(
                    "`block_layout` must be \"hardware\" or \"spec\", not {b}"
                ))
            })?,
        };
        let block_base_alignment = match v.get("block_base_alignment") {
            None => crate::block_io_2d::BASE_ALIGNMENT,
            Some(a) => a
                .as_u64()
                .filter(|a| a.is_power_of_two() && *a <= crate::block_io_2d::BASE_ALIGNMENT)
                .ok_or_else(|| {
                    lerr(format!(
                        "`block_base_alignment` must be a power of two up to 64, not {a}"
                    ))
                })?,
        };
        Ok(Launch {
            kernel,
            global_size,
            local_size,
            args,
            subgroup_size: v
                .get("subgroup_size")
                .and_then(Value::as_u64)
                .map(|x| x as u32),
            max_steps: v
                .get("max_steps")
                .and_then(Value::as_u64)
                .unwrap_or(DEFAULT_MAX_STEPS),
            block_layout,
            block_base_alignment,
        })
    }

    /// Reads and parses a launch file.
    pub fn from_file(path: &Path) -> Result<Launch, SimError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| lerr(format!("{}: {e}", path.display())))?;
        Launch::from_json(&text, path.parent().unwrap_or(Path::new(".")))
    }
}
