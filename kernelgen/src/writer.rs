//! Writing a kernel with rspirv's `dr::Builder`: an independent writer (rspirv's grammar and
//! assembler, nothing of `spvopt-ir`, the crate the kernels test).
//!
//! The generator calls [`Writer::op`] / [`Writer::void_op`] with an opcode and its operand
//! words; each is built by the builder's typed method for that opcode (`i_add`,
//! `subgroup2_d_block_load_intel`, …), so an operand the grammar does not have is a compile
//! error, not a silently wrong word. What the builder does not do for us:
//! - types and constants are made once through a cache of our own (keyed by opcode, result
//!   type and operands), in first-use order (the builder de-duplicates types, not constants);
//! - the kernel's `OpVariable`s are collected and put at the head of its entry block at the end
//!   (the builder appends to the current block);
//! - imported builtin declarations are `dr::Function`s made while the kernel is being built
//!   (the builder builds one function at a time), placed before the kernel;
//! - loop-header `OpPhi`s get their latch operands when the latch is known ([`PhiAt`]);
//! - the header says SPIR-V 1.4 and generator 0 (the bytes the generator has always written:
//!   the kernels feed digests and benchmarks).

use std::collections::HashMap;

use rspirv::binary::Assemble;
use rspirv::dr::{self, Builder, Operand};
use spirv::{Capability, Decoration, Op, StorageClass, Word};

/// Where an `OpPhi` of the kernel is: block index and instruction index in it.
#[derive(Clone, Copy, Debug)]
pub struct PhiAt {
    block: usize,
    index: usize,
}

/// The module being built.
pub struct Writer {
    b: Builder,
    /// Types and constants made: key (opcode, result type, operands) to id.
    cache: HashMap<Vec<u32>, Word>,
    /// The kernel's Function-storage variables, for the head of its entry block.
    vars: Vec<dr::Instruction>,
    /// Imported function declarations, placed before the kernel.
    declarations: Vec<dr::Function>,
}

/// The builder's result for an instruction the generator made: the generator only writes a
/// body instruction inside a block, so an error is a bug of the generator.
fn built<T>(r: Result<T, dr::Error>, op: Op) -> T {
    r.unwrap_or_else(|e| panic!("kernelgen wrote Op{op:?} where it does not belong: {e:?}"))
}

impl Writer {
    /// An empty SPIR-V 1.4 module.
    pub fn new() -> Writer {
        let mut b = Builder::new();
        b.set_version(1, 4);
        Writer {
            b,
            cache: HashMap::new(),
            vars: Vec::new(),
            declarations: Vec::new(),
        }
    }

    /// A fresh id.
    pub fn id(&mut self) -> Word {
        self.b.id()
    }

    /// Declares capability `c` (once).
    pub fn cap(&mut self, c: Capability) {
        let has = |i: &dr::Instruction| i.operands.first() == Some(&Operand::Capability(c));
        if !self.b.module_ref().capabilities.iter().any(has) {
            self.b.capability(c);
        }
    }

    /// Declares extension `e` (once).
    pub fn ext(&mut self, e: &'static str) {
        let has = |i: &dr::Instruction| matches!(i.operands.first(), Some(Operand::LiteralString(s)) if s == e);
        if !self.b.module_ref().extensions.iter().any(has) {
            self.b.extension(e);
        }
    }

    /// The type or constant `key` names, made by `make` the first time.
    fn cached(&mut self, key: Vec<u32>, make: impl FnOnce(&mut Builder) -> Word) -> Word {
        if let Some(&id) = self.cache.get(&key) {
            return id;
        }
        let id = make(&mut self.b);
        self.cache.insert(key, id);
        id
    }

    /// `OpTypeVoid`.
    pub fn void(&mut self) -> Word {
        self.cached(vec![Op::TypeVoid as u32], |b| b.type_void())
    }
    /// `OpTypeBool`.
    pub fn bool_(&mut self) -> Word {
        self.cached(vec![Op::TypeBool as u32], |b| b.type_bool())
    }
    /// The unsigned integer type of `bits` bits (declaring its capability).
    pub fn int(&mut self, bits: u32) -> Word {
        match bits {
            8 => self.cap(Capability::Int8),
            16 => self.cap(Capability::Int16),
            64 => self.cap(Capability::Int64),
            _ => {}
        }
        self.cached(vec![Op::TypeInt as u32, bits, 0], |b| b.type_int(bits, 0))
    }
    /// The float type of `bits` bits (declaring `Float16` for 16).
    pub fn float(&mut self, bits: u32) -> Word {
        if bits == 16 {
            self.cap(Capability::Float16);
        }
        self.cached(vec![Op::TypeFloat as u32, bits], |b| {
            b.type_float(bits, None)
        })
    }
    /// A vector of `n` `elem`s; `elem` itself for `n == 1` (`Vector16` above 4).
    pub fn vector(&mut self, elem: Word, n: u32) -> Word {
        if n == 1 {
            return elem;
        }
        if n > 4 {
            self.cap(Capability::Vector16);
        }
        self.cached(vec![Op::TypeVector as u32, elem, n], |b| {
            b.type_vector(elem, n)
        })
    }
    /// An array of `len` `elem`s.
    pub fn array(&mut self, elem: Word, len: u32) -> Word {
        let u32_ = self.int(32);
        let n = self.constant(u32_, u64::from(len), 32);
        self.cached(vec![Op::TypeArray as u32, elem, n], |b| {
            b.type_array(elem, n)
        })
    }
    /// A pointer to `pointee` in `storage`.
    pub fn pointer(&mut self, storage: StorageClass, pointee: Word) -> Word {
        let key = vec![Op::TypePointer as u32, storage as u32, pointee];
        self.cached(key, |b| b.type_pointer(None, storage, pointee))
    }
    /// A function type.
    pub fn function_type(&mut self, ret: Word, params: &[Word]) -> Word {
        let mut key = vec![Op::TypeFunction as u32, ret];
        key.extend_from_slice(params);
        self.cached(key, |b| b.type_function(ret, params.iter().copied()))
    }
    /// A scalar integer or float constant of `bits` bits (the value truncated to them).
    pub fn constant(&mut self, ty: Word, value: u64, bits: u32) -> Word {
        if bits == 64 {
            let key = vec![Op::Constant as u32, ty, value as u32, (value >> 32) as u32];
            return self.cached(key, |b| b.constant_bit64(ty, value));
        }
        let mask = if bits == 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        let v = value as u32 & mask;
        self.cached(vec![Op::Constant as u32, ty, v], |b| {
            b.constant_bit32(ty, v)
        })
    }
    /// A 64-bit constant with the id `id` reserved before its value was known.
    pub fn constant_u64_with_id(&mut self, ty: Word, id: Word, value: u64) {
        let inst = dr::Instruction::new(
            Op::Constant,
            Some(ty),
            Some(id),
            vec![Operand::LiteralBit64(value)],
        );
        self.b.module_mut().types_global_values.push(inst);
    }
    /// A constant vector of constant `parts`.
    pub fn composite(&mut self, ty: Word, parts: &[Word]) -> Word {
        let mut key = vec![Op::ConstantComposite as u32, ty];
        key.extend_from_slice(parts);
        self.cached(key, |b| b.constant_composite(ty, parts.iter().copied()))
    }
    /// `OpConstantNull` of `ty`.
    pub fn null(&mut self, ty: Word) -> Word {
        self.cached(vec![Op::ConstantNull as u32, ty], |b| b.constant_null(ty))
    }

    /// `OpName`.
    pub fn name(&mut self, id: Word, name: &str) {
        self.b.name(id, name);
    }
    /// `OpDecorate id decoration extra…`.
    pub fn decorate(&mut self, id: Word, decoration: Decoration, extra: Vec<Operand>) {
        self.b.decorate(id, decoration, extra);
    }
    /// A module-scope variable (a built-in input) of pointer type `ty`.
    pub fn global_variable(&mut self, ty: Word, storage: StorageClass) -> Word {
        self.b.variable(ty, None, storage, None)
    }
    /// A Function-storage variable of pointer type `ty` in the kernel's entry block.
    pub fn function_variable(&mut self, ty: Word) -> Word {
        let id = self.id();
        self.vars.push(dr::Instruction::new(
            Op::Variable,
            Some(ty),
            Some(id),
            vec![Operand::StorageClass(StorageClass::Function)],
        ));
        id
    }

    /// Declares an imported function `ret (params…)` of type `fn_ty`; returns its id.
    pub fn declare_function(&mut self, ret: Word, fn_ty: Word, params: &[Word]) -> Word {
        let f = self.id();
        let mut function = dr::Function::new();
        function.def = Some(dr::Instruction::new(
            Op::Function,
            Some(ret),
            Some(f),
            vec![
                Operand::FunctionControl(spirv::FunctionControl::NONE),
                Operand::IdRef(fn_ty),
            ],
        ));
        for &p in params {
            let id = self.id();
            function.parameters.push(dr::Instruction::new(
                Op::FunctionParameter,
                Some(p),
                Some(id),
                vec![],
            ));
        }
        function.end = Some(dr::Instruction::new(Op::FunctionEnd, None, None, vec![]));
        self.declarations.push(function);
        f
    }

    /// Starts the kernel `main` (`void` result, type `fn_ty`, parameters (id, type)) and its
    /// entry block `entry`.
    pub fn begin_kernel(
        &mut self,
        void: Word,
        main: Word,
        fn_ty: Word,
        params: &[(Word, Word)],
        entry: Word,
    ) {
        built(
            self.b
                .begin_function(void, Some(main), spirv::FunctionControl::NONE, fn_ty),
            Op::Function,
        );
        let f = self
            .b
            .selected_function()
            .expect("the kernel is being built");
        for &(id, ty) in params {
            self.b.module_mut().functions[f]
                .parameters
                .push(dr::Instruction::new(
                    Op::FunctionParameter,
                    Some(ty),
                    Some(id),
                    vec![],
                ));
        }
        self.label(entry);
    }

    /// Starts block `id` (after the previous block's terminator).
    pub fn label(&mut self, id: Word) {
        built(self.b.begin_block(Some(id)), Op::Label);
    }

    /// `%id = op %ty operands…` in the current block; returns `id`.
    pub fn op(&mut self, op: Op, ty: Word, id: Word, o: &[Word]) -> Word {
        let b = &mut self.b;
        let r = Some(id);
        let result = match op {
            Op::Load => b.load(ty, r, o[0], None, []),
            Op::CompositeExtract => b.composite_extract(ty, r, o[0], o[1..].iter().copied()),
            Op::CompositeConstruct => b.composite_construct(ty, r, o.iter().copied()),
            Op::UConvert => b.u_convert(ty, r, o[0]),
            Op::Bitcast => b.bitcast(ty, r, o[0]),
            Op::IAdd => b.i_add(ty, r, o[0], o[1]),
            Op::IMul => b.i_mul(ty, r, o[0], o[1]),
            Op::UMod => b.u_mod(ty, r, o[0], o[1]),
            Op::BitwiseAnd => b.bitwise_and(ty, r, o[0], o[1]),
            Op::BitwiseXor => b.bitwise_xor(ty, r, o[0], o[1]),
            Op::ShiftLeftLogical => b.shift_left_logical(ty, r, o[0], o[1]),
            Op::ULessThan => b.u_less_than(ty, r, o[0], o[1]),
            Op::UGreaterThan => b.u_greater_than(ty, r, o[0], o[1]),
            Op::IEqual => b.i_equal(ty, r, o[0], o[1]),
            Op::INotEqual => b.i_not_equal(ty, r, o[0], o[1]),
            Op::InBoundsAccessChain => {
                b.in_bounds_access_chain(ty, r, o[0], o[1..].iter().copied())
            }
            Op::InBoundsPtrAccessChain => {
                b.in_bounds_ptr_access_chain(ty, r, o[0], o[1], o[2..].iter().copied())
            }
            Op::FunctionCall => b.function_call(ty, r, o[0], o[1..].iter().copied()),
            Op::Phi => b.phi(ty, r, o.chunks(2).map(|p| (p[0], p[1]))),
            Op::SubgroupBlockReadINTEL => b.subgroup_block_read_intel(ty, r, o[0]),
            Op::SubgroupMatrixMultiplyAccumulateINTEL => b
                .subgroup_matrix_multiply_accumulate_intel(
                    ty,
                    r,
                    o[0],
                    o[1],
                    o[2],
                    o[3],
                    o.get(4)
                        .map(|&m| spirv::MatrixMultiplyAccumulateOperands::from_bits_retain(m)),
                ),
            _ => panic!("kernelgen writes no Op{op:?} with a result"),
        };
        built(result, op)
    }

    /// `op operands…` (no result) in the current block; a terminator ends the block.
    pub fn void_op(&mut self, op: Op, o: &[Word]) {
        let b = &mut self.b;
        let result = match op {
            Op::Store => b.store(o[0], o[1], None, []),
            Op::CopyMemorySized => b.copy_memory_sized(o[0], o[1], o[2], None, None, []),
            Op::SelectionMerge => {
                b.selection_merge(o[0], spirv::SelectionControl::from_bits_retain(o[1]))
            }
            Op::LoopMerge => {
                b.loop_merge(o[0], o[1], spirv::LoopControl::from_bits_retain(o[2]), [])
            }
            Op::Branch => b.branch(o[0]),
            Op::BranchConditional => b.branch_conditional(o[0], o[1], o[2], []),
            Op::Return => b.ret(),
            Op::Subgroup2DBlockLoadINTEL => b.subgroup2_d_block_load_intel(
                o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9],
            ),
            Op::Subgroup2DBlockLoadTransformINTEL => b.subgroup2_d_block_load_transform_intel(
                o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9],
            ),
            Op::Subgroup2DBlockLoadTransposeINTEL => b.subgroup2_d_block_load_transpose_intel(
                o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9],
            ),
            Op::Subgroup2DBlockStoreINTEL => b.subgroup2_d_block_store_intel(
                o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9],
            ),
            Op::Subgroup2DBlockPrefetchINTEL => b.subgroup2_d_block_prefetch_intel(
                o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8],
            ),
            _ => panic!("kernelgen writes no Op{op:?} without a result"),
        };
        built(result, op)
    }

    /// `%id = OpPhi %ty value parent…` in the current block; where it is, for
    /// [`Writer::set_incoming`].
    pub fn phi(&mut self, ty: Word, id: Word, incoming: &[(Word, Word)]) -> PhiAt {
        built(self.b.phi(ty, Some(id), incoming.iter().copied()), Op::Phi);
        let (f, block) = (
            self.b.selected_function().expect("in the kernel"),
            self.b.selected_block().expect("in a block"),
        );
        let index = self.b.module_ref().functions[f].blocks[block]
            .instructions
            .len()
            - 1;
        PhiAt { block, index }
    }

    /// Sets incoming pair `k` of the phi at `at` to (`value`, `parent`).
    pub fn set_incoming(&mut self, at: PhiAt, k: usize, value: Word, parent: Word) {
        let f = self.b.selected_function().expect("in the kernel");
        let phi = &mut self.b.module_mut().functions[f].blocks[at.block].instructions[at.index];
        phi.operands[2 * k] = Operand::IdRef(value);
        phi.operands[2 * k + 1] = Operand::IdRef(parent);
    }

    /// Ends the kernel `main` (its last block ended) and returns the module's words: the
    /// capabilities every kernel has, the memory model, the entry point with `interface`, the
    /// subgroup size `sg`.
    pub fn finish(&mut self, main: Word, sg: u32, interface: &[Word]) -> Vec<u32> {
        built(self.b.end_function(), Op::FunctionEnd);
        self.cap(Capability::Addresses);
        self.cap(Capability::Kernel);
        self.cap(Capability::SubgroupDispatch);
        self.b.memory_model(
            spirv::AddressingModel::Physical64,
            spirv::MemoryModel::OpenCL,
        );
        self.b
            .entry_point(spirv::ExecutionModel::Kernel, main, "main", interface);
        self.b
            .execution_mode(main, spirv::ExecutionMode::SubgroupSize, [sg]);
        let mut m = std::mem::take(&mut self.b).module();
        if let Some(h) = m.header.as_mut() {
            h.generator = 0;
        }
        let entry = &mut m.functions[0].blocks[0].instructions;
        entry.splice(0..0, std::mem::take(&mut self.vars));
        m.functions
            .splice(0..0, std::mem::take(&mut self.declarations));
        m.assemble()
    }
}
