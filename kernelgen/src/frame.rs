//! The kernel's frame: the choices of subgroup size, work-groups and budget, the kernel's
//! parameters and built-in inputs, the prologue (global, work-group and subgroup ids, the
//! invocation's output slice and the subgroup's region of `st`), the 2D surfaces, the loop of
//! statements, and the launch with its buffers.

use spirv::{BuiltIn, Decoration, Op, StorageClass};
use spvopt_sim::{Arg, Launch};

use rspirv::dr::Operand;

use crate::{Gen, Kernel, Surface, MARKER, MAX_STEPS, SRC_BYTES, ST_REGION};

impl Gen<'_> {
    pub(crate) fn run(mut self) -> Kernel {
        self.sg = if self.c.chance(25) { 8 } else { 16 };
        self.summary.subgroup_size = self.sg;
        self.nsg = 1 + self.c.below(2) as u32;
        self.groups = 1 + self.c.below(2) as u32;
        self.budget = 3 + self.c.below(10) as u32;
        self.exotic = self.c.chance(25);
        self.wild = self.c.chance(20);

        let t_u32 = self.t.u32_;
        let p_cw = self.t.p_cw_u8;
        let fn_ty = self
            .s
            .function_type(self.t.void, &[p_cw, p_cw, p_cw, t_u32, t_u32, t_u32, t_u32]);
        let main = self.s.id();
        self.src = self.s.id();
        self.dst = self.s.id();
        self.st = self.s.id();
        for i in 0..4 {
            self.args[i] = self.s.id();
        }
        for (id, name) in [
            (main, "main"),
            (self.src, "src"),
            (self.dst, "dst"),
            (self.st, "st"),
            (self.args[0], "w"),
            (self.args[1], "h"),
            (self.args[2], "p"),
            (self.args[3], "n"),
        ] {
            self.s.name(id, name);
        }
        // builtin variables
        let p_in_v3 = self.s.pointer(StorageClass::Input, self.t.v3u64);
        let p_in_u32 = self.s.pointer(StorageClass::Input, t_u32);
        let mut interface = Vec::new();
        let mut builtin_var = |g: &mut Gen, ty: u32, b: BuiltIn| {
            let v = g.s.global_variable(ty, StorageClass::Input);
            g.s.decorate(v, Decoration::BuiltIn, vec![Operand::BuiltIn(b)]);
            g.s.decorate(v, Decoration::Constant, vec![]);
            interface.push(v);
            v
        };
        let gid_var = builtin_var(&mut self, p_in_v3, BuiltIn::GlobalInvocationId);
        let wg_var = builtin_var(&mut self, p_in_v3, BuiltIn::WorkgroupId);
        let lid_var = builtin_var(&mut self, p_in_u32, BuiltIn::SubgroupLocalInvocationId);
        let sgid_var = builtin_var(&mut self, p_in_u32, BuiltIn::SubgroupId);

        // launch arguments: surface w/h/p for argument surfaces, n
        let w = self.c.pick(&[64u32, 128, 256]);
        let h = self.c.pick(&[8u32, 16, 32]);
        let p = w + self.c.pick(&[0u32, 0, 64]);
        self.arg_values = [w, h, p, self.c.below(256) as u32];

        // prologue
        let entry = self.s.id();
        let params = [
            (self.src, p_cw),
            (self.dst, p_cw),
            (self.st, p_cw),
            (self.args[0], t_u32),
            (self.args[1], t_u32),
            (self.args[2], t_u32),
            (self.args[3], t_u32),
        ];
        self.s
            .begin_kernel(self.t.void, main, fn_ty, &params, entry);
        self.label = entry;
        let t_u64 = self.t.u64_;
        let v3 = self.t.v3u64;
        let gid3 = self.op(Op::Load, v3, &[gid_var]);
        let gid = self.op(Op::CompositeExtract, t_u64, &[gid3, 0]);
        let wg3 = self.op(Op::Load, v3, &[wg_var]);
        let wg64 = self.op(Op::CompositeExtract, t_u64, &[wg3, 0]);
        self.wg = self.op(Op::UConvert, t_u32, &[wg64]);
        self.lid = self.op(Op::Load, t_u32, &[lid_var]);
        self.sgid = self.op(Op::Load, t_u32, &[sgid_var]);
        self.per_inv_id = self.s.id();
        let obase = self.op(Op::IMul, t_u64, &[gid, self.per_inv_id]);
        self.out_base = self.op(Op::InBoundsPtrAccessChain, p_cw, &[self.dst, obase]);
        let nsg = self.u32c(self.nsg);
        let wgs = self.op(Op::IMul, t_u32, &[self.wg, nsg]);
        let sgindex = self.op(Op::IAdd, t_u32, &[wgs, self.sgid]);
        let region = self.u32c(ST_REGION);
        let st_off = self.op(Op::IMul, t_u32, &[sgindex, region]);
        self.st_base = self.cw_offset(self.st, st_off);
        let marker = self.u32c(MARKER);
        self.observe_u32(marker);
        self.make_surfaces();

        while self.budget > 0 {
            self.budget -= 1;
            self.statement(0);
            if self.c.exhausted() {
                break;
            }
        }
        self.void_op(Op::Return, &[]);

        // the bytes of dst per invocation, now known
        let per_inv = self.out_off.div_ceil(64) * 64;
        self.s
            .constant_u64_with_id(t_u64, self.per_inv_id, u64::from(per_inv));
        let words = self.s.finish(main, self.sg, &interface);
        // the id bound seeds the buffers' contents
        let launch = self.launch(per_inv, words[3]);
        Kernel {
            words,
            launch,
            summary: self.summary,
        }
    }

    pub(crate) fn make_surfaces(&mut self) {
        let n = 1 + self.c.below(3);
        let p_cw = self.t.p_cw_u8;
        for k in 0..n {
            let from_args = k == 1 || (k == 0 && self.c.chance(20));
            let (w, h, p) = if from_args {
                (self.arg_values[0], self.arg_values[1], self.arg_values[2])
            } else {
                let w = self.c.pick(&[64u32, 128, 256, 512]);
                let h = self.c.pick(&[8u32, 16, 32, 64]);
                (w, h, w + self.c.pick(&[0u32, 0, 64, 128]))
            };
            let h = h.min(32 * 1024 / p);
            // a base 64-byte aligned offset into src, the region within 36 KiB
            let room = (36 * 1024 - p * h) / 64;
            let off = 64 * self.c.below(room.min(16) as usize + 1) as u32;
            let base = if off == 0 {
                self.src
            } else {
                let oc = self.u32c(off);
                self.cw_offset(self.src, oc)
            };
            let (width, height, pitch) = if from_args {
                (self.args[0], self.args[1], self.args[2])
            } else {
                (self.u32c(w), self.u32c(h), self.u32c(p))
            };
            self.surfaces.push(Surface {
                base,
                width,
                height,
                pitch,
                w,
                h,
                in_st: false,
            });
            let _ = p_cw;
        }
        // the subgroup's region of st
        let w = self.c.pick(&[64u32, 128]);
        let p = w + self.c.pick(&[0u32, 64]);
        let h = (ST_REGION / p).min(self.c.pick(&[8u32, 16, 32]));
        let (width, height, pitch) = (self.u32c(w), self.u32c(h), self.u32c(p));
        self.surfaces.push(Surface {
            base: self.st_base,
            width,
            height,
            pitch,
            w,
            h,
            in_st: true,
        });
    }

    pub(crate) fn launch(&mut self, per_inv: u32, bound: u32) -> Launch {
        let local = u64::from(self.sg * self.nsg);
        let global = local * u64::from(self.groups);
        // bytes whose f16 / bf16 / f32 readings are all finite and below 1 in magnitude
        let mut r = spvopt_sim::launch::SplitMix64(u64::from(bound) * 0x9E37 + 7);
        let wild = self.wild;
        let mut data = |n: u32| -> Vec<u8> {
            (0..n)
                .map(|_| {
                    let x = r.next_u64();
                    if wild {
                        (x >> 32) as u8
                    } else {
                        ((x % 0x3C) as u8) | ((x >> 40) as u8 & 0x80)
                    }
                })
                .collect()
        };
        let buffer = |bytes: Vec<u8>| Arg::Buffer {
            bytes,
            ty: None,
            ulp: None,
        };
        let scalar = |v: u32| Arg::Scalar {
            ty: "u32".into(),
            bytes: v.to_le_bytes().to_vec(),
        };
        let args = vec![
            buffer(data(SRC_BYTES)),
            buffer(vec![0; (global * u64::from(per_inv)) as usize]),
            buffer(data(ST_REGION * self.nsg * self.groups)),
            scalar(self.arg_values[0]),
            scalar(self.arg_values[1]),
            scalar(self.arg_values[2]),
            scalar(self.arg_values[3]),
        ];
        let mut launch = Launch::new("main", [global, 1, 1], [local, 1, 1], args);
        launch.subgroup_size = Some(self.sg);
        launch.max_steps = MAX_STEPS;
        launch
    }
}
