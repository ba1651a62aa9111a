//! 2D block IO statements: shapes (table, padded and oversized), surfaces, coordinates (in and
//! out of bounds, subgroup-dependent, loop-affine), loads with their destinations and their
//! copies to the output, fusable pairs and near misses, prefetches, stores, the OpenCL builtin
//! form, and 1D subgroup block reads.

use rspirv::dr::Operand;
use spirv::{Capability, Decoration, Op, StorageClass};
use spvopt_sim::block_io_2d::{self, Block2dParams};
use spvopt_sim::subgroup::Subgroup;

use crate::{Coord, Gen, Kind, Loaded, Shape, Surface, MAX_DST_BYTES, SCALAR_AREA};

impl Gen<'_> {
    pub(crate) fn pick_shape(&mut self, kind: Kind) -> Shape {
        let exotic = self.exotic;
        let c = &mut self.c;
        let (es, w, h, count) = match kind {
            Kind::Load | Kind::Prefetch | Kind::Store => {
                let es = c.pick(&[1u32, 2, 2, 2, 4, 4, 8]);
                let w = match es {
                    1 => c.pick(&[4u32, 8, 16, 32, 64, if exotic { 12 } else { 16 }]),
                    2 => c.pick(&[2u32, 4, 8, 16, 16, 32, if exotic { 6 } else { 8 }]),
                    4 => c.pick(&[1u32, 2, 4, 8, 16, if exotic { 3 } else { 8 }]),
                    _ => c.pick(&[1u32, 2, 4, 8]),
                };
                let h = if kind == Kind::Store {
                    c.pick(&[1u32, 2, 4, 8, 8, 16])
                } else {
                    c.pick(&[
                        1u32,
                        2,
                        4,
                        8,
                        8,
                        16,
                        32,
                        if exotic { 3 } else { 8 },
                        if exotic { 5 } else { 16 },
                    ])
                };
                let count = if kind == Kind::Store {
                    1
                } else {
                    c.pick(&[1u32, 1, 1, 2, 4])
                };
                (es, w, h, count)
            }
            Kind::Transform => {
                let es = c.pick(&[1u32, 2, 2]);
                let (w, h) = if es == 1 {
                    (
                        c.pick(&[4u32, 8, 16, 16, 32, 64]),
                        c.pick(&[4u32, 8, 16, 32, if exotic { 6 } else { 32 }]),
                    )
                } else {
                    (
                        c.pick(&[2u32, 4, 8, 16, 16, 32]),
                        c.pick(&[2u32, 4, 8, 16, 32, if exotic { 3 } else { 16 }]),
                    )
                };
                (es, w, h, c.pick(&[1u32, 1, 2, 4]))
            }
            Kind::Transpose => {
                let es = c.pick(&[4u32, 4, 8]);
                if es == 4 {
                    (
                        es,
                        c.pick(&[1u32, 2, 4, 8, 16]),
                        c.pick(&[1u32, 2, 4, 8, 16, 32, if exotic { 3 } else { 8 }]),
                        1,
                    )
                } else {
                    (es, c.pick(&[1u32, 2, 4]), c.pick(&[8u32, 4]), 1)
                }
            }
        };
        let mut s = Shape { es, w, h, c: count };
        while self.dst_bytes(kind, s).is_none_or(|b| b > MAX_DST_BYTES) {
            if s.c > 1 {
                s.c /= 2;
            } else if s.h > 1 {
                s.h /= 2;
            } else {
                // a shape every profile's table has
                return match kind {
                    Kind::Transform => Shape {
                        es: 2,
                        w: 16,
                        h: 16,
                        c: 1,
                    },
                    Kind::Transpose => Shape {
                        es: 4,
                        w: 8,
                        h: 8,
                        c: 1,
                    },
                    _ => Shape {
                        es: 2,
                        w: 16,
                        h: 8,
                        c: 1,
                    },
                };
            }
        }
        s
    }

    /// Per-invocation bytes of a block op (0 for prefetches), as the simulator computes them.
    pub(crate) fn dst_bytes(&self, kind: Kind, s: Shape) -> Option<u32> {
        let p = Block2dParams {
            element_size: s.es,
            block_width: s.w,
            block_height: s.h,
            block_count: s.c,
            base: 0,
            memory_width: 64,
            memory_height: 1,
            memory_pitch: 64,
            x: 0,
            y: 0,
            mapping: Default::default(),
            base_alignment: spvopt_sim::block_io_2d::BASE_ALIGNMENT,
        };
        block_io_2d::layout(kind.sim_op(), &p, Subgroup::full(self.sg))
            .ok()
            .map(|l| l.bytes_per_invocation as u32)
    }

    pub(crate) fn pick_surface(&mut self, kind: Kind) -> Surface {
        let stores = kind == Kind::Store;
        let mut candidates = Vec::new();
        for k in 0..self.surfaces.len() {
            let sf = self.surfaces[k];
            if sf.in_st == stores || (!stores && self.c.chance(15)) {
                candidates.push(sf);
            }
        }
        if candidates.is_empty() {
            // loads from src
            return self.surfaces[0];
        }
        let i = self.c.below(candidates.len());
        candidates[i]
    }

    /// Coordinates mostly inside `sf` (elements of `s.es` bytes), sometimes partly outside,
    /// sometimes subgroup-dependent or affine in the innermost loop counter.
    pub(crate) fn pick_coord(&mut self, sf: &Surface, s: Shape, kind: Kind) -> Coord {
        let multiple = match s.es {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        let cols = (sf.w / s.es) as i32;
        let mut x = self.c.below((cols as usize).max(1)) as i32 / multiple * multiple;
        if self.c.chance(10) {
            x = -(s.w as i32 / multiple).max(1) * multiple;
        }
        let mut y = self.c.below(sf.h as usize) as i32;
        match self.c.below(16) {
            0 => y = -1,
            1 => y = sf.h as i32, // wholly below the surface: zeros
            _ => {}
        }
        let u = self.t.u32_;
        let mut coord = Coord {
            x,
            y,
            x_dyn: None,
            y_dyn: None,
        };
        if let Some(l) = self.loops.last().copied() {
            if self.c.chance(75) {
                self.summary.loop_carried_loads += u32::from(kind != Kind::Store);
                // affine in the counter: a block (or row group) per iteration
                let (along_x, step) = if self.c.chance(50) {
                    let step = match kind {
                        Kind::Transpose => s.h,
                        _ => s.w * s.c,
                    };
                    (true, step.div_ceil(multiple as u32) * multiple as u32)
                } else {
                    (false, if kind == Kind::Transpose { s.w } else { s.h })
                };
                let sc = self.u32c(step);
                let d = self.op(Op::IMul, u, &[l.counter, sc]);
                if along_x {
                    coord.x_dyn = Some(d);
                    coord.x = coord.x.min(cols / 2) / multiple * multiple;
                } else {
                    coord.y_dyn = Some(d);
                    coord.y = coord.y.min(sf.h as i32 / 2);
                }
                return coord;
            }
        }
        if self.c.chance(15) {
            // subgroup-uniform but not constant: the subgroup id
            let k = self.u32c(s.h);
            let d = self.op(Op::IMul, u, &[self.sgid, k]);
            coord.y_dyn = Some(d);
        }
        coord
    }

    pub(crate) fn coord_value(&mut self, c: Coord) -> u32 {
        let u = self.t.u32_;
        let part = |g: &mut Gen, k: i32, d: Option<u32>| {
            let kc = g.u32c(k as u32);
            match d {
                Some(d) if k == 0 => d,
                Some(d) => g.op(Op::IAdd, u, &[d, kc]),
                None => kc,
            }
        };
        let x = part(self, c.x, c.x_dyn);
        let y = part(self, c.y, c.y_dyn);
        if c.x_dyn.is_none() && c.y_dyn.is_none() && self.c.chance(50) {
            let v = self.t.v2u32;
            return self.s.composite(v, &[x, y]);
        }
        let v = self.t.v2u32;
        self.op(Op::CompositeConstruct, v, &[x, y])
    }

    /// Emits one block operation; `dst` is the per-invocation pointer (loads, stores).
    pub(crate) fn emit_block(
        &mut self,
        kind: Kind,
        s: Shape,
        sf: &Surface,
        coord: u32,
        ptr: Option<(u32, u32)>,
    ) {
        match kind {
            Kind::Load => self.summary.loads += 1,
            Kind::Transform => self.summary.transform_loads += 1,
            Kind::Transpose => self.summary.transpose_loads += 1,
            Kind::Prefetch => self.summary.prefetches += 1,
            Kind::Store => self.summary.stores += 1,
        }
        self.s.cap(Capability::Subgroup2DBlockIOINTEL);
        self.s.ext("SPV_INTEL_2d_block_io");
        // builtin form: 1/2/4-byte elements, argument surfaces (int width/height/pitch)
        let builtin_ok = s.es <= 4 && !(kind == Kind::Transpose && s.es != 4);
        if builtin_ok && self.c.chance(12) {
            self.builtin_call(kind, s, sf, coord, ptr.map(|p| p.1));
            return;
        }
        match kind {
            Kind::Transform => self.s.cap(Capability::Subgroup2DBlockTransformINTEL),
            Kind::Transpose => self.s.cap(Capability::Subgroup2DBlockTransposeINTEL),
            _ => {}
        }
        let [es, w, h, c] = [s.es, s.w, s.h, s.c].map(|v| self.u32c(v));
        let ops: Vec<u32> = match (kind, ptr.map(|p| p.0)) {
            (Kind::Prefetch, _) => vec![es, w, h, c, sf.base, sf.width, sf.height, sf.pitch, coord],
            (Kind::Store, Some(p)) => {
                vec![
                    es, w, h, c, p, sf.base, sf.width, sf.height, sf.pitch, coord,
                ]
            }
            (_, Some(p)) => vec![
                es, w, h, c, sf.base, sf.width, sf.height, sf.pitch, coord, p,
            ],
            _ => unreachable!("loads and stores have a pointer"),
        };
        self.void_op(kind.op(), &ops);
    }

    /// `kind` as a call of the OpenCL builtin; `var` is the per-invocation array.
    pub(crate) fn builtin_call(
        &mut self,
        kind: Kind,
        s: Shape,
        sf: &Surface,
        coord: u32,
        var: Option<u32>,
    ) {
        self.summary.builtin_calls += 1;
        self.s.cap(Capability::Linkage);
        let base = format!(
            "intel_sub_group_2d_block_{}_{}b_{}r{}x{}c",
            kind.builtin(),
            s.es * 8,
            s.h,
            s.w,
            s.c
        );
        let elem_code = match (kind, s.es) {
            (Kind::Transform, _) | (_, 4) => "j",
            (_, 1) => "h",
            _ => "t",
        };
        let name = match kind {
            Kind::Prefetch => format!("_Z{}{base}PU3AS1viiiDv2_i", base.len()),
            _ => format!("_Z{}{base}PU3AS1viiiDv2_iP{elem_code}", base.len()),
        };
        let t_u32 = self.t.u32_;
        let elem = match elem_code {
            "j" => t_u32,
            "h" => self.t.u8_,
            _ => self.s.int(16),
        };
        let p_elem = self.s.pointer(StorageClass::Function, elem);
        let mut params = vec![self.t.p_cw_u8, t_u32, t_u32, t_u32, self.t.v2u32];
        if kind != Kind::Prefetch {
            params.push(p_elem);
        }
        let f = match self.builtins.iter().find(|(n, _)| *n == name) {
            Some(&(_, f)) => f,
            None => {
                let fty = self.s.function_type(self.t.void, &params);
                let f = self.s.declare_function(self.t.void, fty, &params);
                self.s.name(f, &name);
                let import = vec![
                    Operand::LiteralString(name.clone()),
                    Operand::LinkageType(spirv::LinkageType::Import),
                ];
                self.s.decorate(f, Decoration::LinkageAttributes, import);
                self.builtins.push((name, f));
                f
            }
        };
        let mut args = vec![f, sf.base, sf.width, sf.height, sf.pitch, coord];
        if let Some(var) = var {
            // the builtin's pointer type, to the array's first byte
            let q = self.op(Op::Bitcast, p_elem, &[var]);
            args.push(q);
        }
        let void = self.t.void;
        self.op(Op::FunctionCall, void, &args);
    }

    /// A fresh Function array for `bytes` bytes of `kind`'s destination; returns (loaded,
    /// pointer operand).
    pub(crate) fn destination(&mut self, kind: Kind, s: Shape, bytes: u32) -> (Loaded, u32) {
        let elem_bytes = if kind == Kind::Transform { 4 } else { s.es };
        let elem = self.s.int(elem_bytes * 8);
        let arr = self.s.array(elem, bytes / elem_bytes);
        let var = self.variable(arr);
        let ptr = if kind == Kind::Transform || self.c.chance(50) {
            let p = self.s.pointer(StorageClass::Function, elem);
            let zero = self.u32c(0);
            self.op(Op::InBoundsAccessChain, p, &[var, zero])
        } else {
            let p = self.t.p_fn_u8;
            self.op(Op::Bitcast, p, &[var])
        };
        (
            Loaded {
                var,
                bytes,
                elem,
                elem_bytes,
            },
            ptr,
        )
    }

    /// Copies (all or a prefix of) a loaded array to the output.
    pub(crate) fn observe_loaded(&mut self, l: Loaded) {
        let p = self.t.p_fn_u8;
        let src = self.op(Op::Bitcast, p, &[l.var]);
        let half = l.bytes / 2 / l.elem_bytes * l.elem_bytes;
        let bytes = if half > 0 && self.c.chance(20) {
            half
        } else {
            l.bytes
        };
        let out = self.out_ptr(bytes, 16);
        let n = self.u32c(bytes);
        self.void_op(Op::CopyMemorySized, &[out, src, n]);
    }

    pub(crate) fn block_load(&mut self, kind: Kind) {
        let mut s = self.pick_shape(kind);
        let pair = kind != Kind::Transpose && self.c.chance(45);
        if pair && self.c.chance(70) {
            // small enough that the two fit one load of the target tables
            s = self.narrow_for_pair(s);
        }
        let sf = self.pick_surface(kind);
        let coord = self.pick_coord(&sf, s, kind);
        let bytes = self.dst_bytes(kind, s).unwrap_or(0);
        let (l, ptr) = self.destination(kind, s, bytes);
        let cv = self.coord_value(coord);
        self.emit_block(kind, s, &sf, cv, Some((ptr, l.var)));
        self.scope.push(l);
        // copies out right away, or after the partner (a write between two loads of the
        // same memory, which may alias dst, keeps fuse-block-loads from fusing them)
        let copy_first = self.c.chance(30);
        if copy_first || (!pair && self.c.chance(85)) {
            self.observe_loaded(l);
        }
        if pair {
            if self.c.chance(25) {
                // code between the two: other blocks (cross-block fusion), writes to st
                self.summary.between_pairs += 1;
                match self.c.below(3) {
                    0 => self.divergent_if_with(1, None),
                    1 => self.write_st(),
                    _ => {
                        let v = self.divergent_value();
                        self.observe_u32(v);
                    }
                }
            }
            let (s2, sf2, c2) = self.partner(kind, s, sf, coord);
            let bytes2 = self.dst_bytes(kind, s2).unwrap_or(0);
            let (l2, ptr2) = self.destination(kind, s2, bytes2);
            let cv2 = self.coord_value(c2);
            self.emit_block(kind, s2, &sf2, cv2, Some((ptr2, l2.var)));
            self.scope.push(l2);
            if !copy_first {
                self.observe_loaded(l);
            }
            self.observe_loaded(l2);
        }
    }

    /// `s` with count 1 and at most half the widest row of the Xe-HPC tables.
    pub(crate) fn narrow_for_pair(&mut self, s: Shape) -> Shape {
        let widest = 64 / s.es;
        let multiple = match s.es {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        let mut w = s.w;
        while w * 2 > widest && w / 2 >= multiple && (w / 2).is_multiple_of(multiple) {
            w /= 2;
        }
        let n = Shape { w, c: 1, ..s };
        if n.es == 8 || w * 2 > widest {
            s
        } else {
            n
        }
    }

    /// A second block operation next to the first: right after its last block (fusable), or
    /// a near miss.
    pub(crate) fn partner(
        &mut self,
        kind: Kind,
        s: Shape,
        sf: Surface,
        c: Coord,
    ) -> (Shape, Surface, Coord) {
        let mut c2 = c;
        let mut s2 = s;
        let mut sf2 = sf;
        let multiple = match s.es {
            1 => 4,
            2 => 2,
            _ => 1,
        };
        match self.c.below(9) {
            8 => {
                // the same block again (reuse)
                self.summary.identical_pairs += 1;
            }
            0..=3 => {
                self.summary.adjacent_pairs += 1;
                c2.x += (s.w * s.c) as i32;
                if self.c.chance(20) {
                    // reversed order: the partner is the left one
                    c2.x = c.x - (s.w * s.c) as i32;
                }
            }
            4 => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32 + multiple;
            }
            5 => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32;
                c2.y += 1;
            }
            6 => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32;
                let others: Vec<Surface> = self
                    .surfaces
                    .iter()
                    .copied()
                    .filter(|o| o.in_st == sf.in_st)
                    .collect();
                sf2 = others[self.c.below(others.len())];
            }
            _ => {
                self.summary.near_misses += 1;
                c2.x += (s.w * s.c) as i32;
                s2.c = if s.c == 1 { 2 } else { 1 };
                if self.dst_bytes(kind, s2).is_none_or(|b| b > MAX_DST_BYTES) {
                    s2 = s;
                }
            }
        }
        (s2, sf2, c2)
    }

    pub(crate) fn prefetch(&mut self) {
        let s = self.pick_shape(Kind::Prefetch);
        let sf = self.pick_surface(Kind::Prefetch);
        let coord = self.pick_coord(&sf, s, Kind::Prefetch);
        let cv = self.coord_value(coord);
        self.emit_block(Kind::Prefetch, s, &sf, cv, None);
        if self.c.chance(50) {
            let (s2, sf2, c2) = self.partner(Kind::Prefetch, s, sf, coord);
            let cv2 = self.coord_value(c2);
            self.emit_block(Kind::Prefetch, s2, &sf2, cv2, None);
        }
    }

    pub(crate) fn store(&mut self) {
        let s = self.pick_shape(Kind::Store);
        // the data: a load of the same shape (same per-invocation layout) from src
        let load_sf = self.surfaces[0];
        let lc = self.pick_coord(&load_sf, s, Kind::Load);
        let bytes = self.dst_bytes(Kind::Store, s).unwrap_or(0);
        let (l, ptr) = self.destination(Kind::Load, s, bytes);
        let lcv = self.coord_value(lc);
        self.emit_block(Kind::Load, s, &load_sf, lcv, Some((ptr, l.var)));
        if self.c.chance(40) {
            // per-invocation changes before the store
            self.scope.push(l);
            let depth = 1;
            self.divergent_if_with(depth, Some(l));
            self.scope.pop();
        }
        let sf = self.pick_surface(Kind::Store);
        let coord = self.pick_coord(&sf, s, Kind::Store);
        let cv = self.coord_value(coord);
        self.emit_block(Kind::Store, s, &sf, cv, Some((ptr, l.var)));
        if self.c.chance(30) {
            // read back what the store wrote (and what it did not)
            let back = Shape { c: 1, ..s };
            let bytes = self.dst_bytes(Kind::Load, back).unwrap_or(0);
            let (l2, p2) = self.destination(Kind::Load, back, bytes);
            let cv2 = self.coord_value(coord);
            self.emit_block(Kind::Load, back, &sf, cv2, Some((p2, l2.var)));
            self.observe_loaded(l2);
        }
    }

    /// `OpSubgroupBlockReadINTEL` of 1, 2, 4 or 8 dwords per invocation from src (at a
    /// counter-affine address inside loops: `insert-prefetches` prefetches those too).
    pub(crate) fn block_read_1d(&mut self) {
        self.summary.block_reads_1d += 1;
        self.s.cap(Capability::SubgroupBufferBlockIOINTEL);
        self.s.ext("SPV_INTEL_subgroups");
        let n = self.c.pick(&[1u32, 1, 2, 4, 8]);
        let u = self.t.u32_;
        let ty = self.s.vector(u, n);
        let first = SCALAR_AREA / 4 + 16 * self.c.below(32) as u32;
        let mut idx = self.u32c(first);
        if let Some(l) = self.loops.last().copied() {
            if self.c.chance(75) {
                let step = self.u32c(n * self.sg);
                let d = self.op(Op::IMul, u, &[l.counter, step]);
                idx = self.op(Op::IAdd, u, &[d, idx]);
            }
        }
        let pt = self.t.p_cw_u32;
        let base = self.op(Op::Bitcast, pt, &[self.src]);
        let p = self.op(Op::InBoundsPtrAccessChain, pt, &[base, idx]);
        let v = self.op(Op::SubgroupBlockReadINTEL, ty, &[p]);
        let out = self.out_ptr(4 * n, (4 * n).next_power_of_two());
        let po = self.s.pointer(StorageClass::CrossWorkgroup, ty);
        let q = self.op(Op::Bitcast, po, &[out]);
        self.void_op(Op::Store, &[q, v]);
    }
}
