#!/usr/bin/env python3
"""Writes a SPIR-V assembly kernel module of about N instructions made of many small kernels, each
a single-block loop (like Triton's) with four column-adjacent 2D block loads whose row coordinate
is affine in the loop counter: work for fuse-block-loads, insert-prefetches and the analyses.

Usage: python3 tools/bench/block_io_module.py N OUT.spvasm
Then:  spirv-as --target-env spv1.4 OUT.spvasm -o OUT.spv
       spv-opt --skip-validation --target pvc --fuse-block-loads --time-report OUT.spv -o /dev/null
"""
import sys

n_target = int(sys.argv[1])
out = open(sys.argv[2], "w")
PER_KERNEL = 33  # instructions per kernel below, entry point and execution mode included
kernels = max(1, n_target // PER_KERNEL)

w = out.write
w("""OpCapability Addresses
OpCapability Kernel
OpCapability Int64
OpCapability Int16
OpCapability Int8
OpCapability SubgroupDispatch
OpCapability Subgroup2DBlockIOINTEL
OpExtension "SPV_INTEL_2d_block_io"
OpMemoryModel Physical64 OpenCL
""")
for k in range(kernels):
    w(f'OpEntryPoint Kernel %f{k} "k{k}"\n')
for k in range(kernels):
    w(f"OpExecutionMode %f{k} SubgroupSize 16\n")
w("""%void = OpTypeVoid
%bool = OpTypeBool
%uint = OpTypeInt 32 0
%uchar = OpTypeInt 8 0
%v2uint = OpTypeVector %uint 2
%uint_0 = OpConstant %uint 0
%uint_1 = OpConstant %uint 1
%uint_2 = OpConstant %uint 2
%uint_4 = OpConstant %uint 4
%uint_16 = OpConstant %uint 16
%uint_32 = OpConstant %uint 32
%uint_48 = OpConstant %uint 48
%uint_64 = OpConstant %uint 64
%uint_128 = OpConstant %uint 128
%arr = OpTypeArray %uchar %uint_64
%ptr_cw = OpTypePointer CrossWorkgroup %uchar
%ptr_fn_arr = OpTypePointer Function %arr
%ptr_fn = OpTypePointer Function %uchar
%fnty = OpTypeFunction %void %ptr_cw %uint
""")
for k in range(kernels):
    v = f"_{k}"
    w(f"""%f{k} = OpFunction %void None %fnty
%src{v} = OpFunctionParameter %ptr_cw
%n{v} = OpFunctionParameter %uint
%e{v} = OpLabel
%a{v} = OpVariable %ptr_fn_arr Function
%b{v} = OpVariable %ptr_fn_arr Function
%c{v} = OpVariable %ptr_fn_arr Function
%d{v} = OpVariable %ptr_fn_arr Function
OpBranch %l{v}
%l{v} = OpLabel
%i{v} = OpPhi %uint %uint_0 %e{v} %in{v} %l{v}
%y{v} = OpIMul %uint %i{v} %uint_16
%ca{v} = OpCompositeConstruct %v2uint %uint_0 %y{v}
%cb{v} = OpCompositeConstruct %v2uint %uint_16 %y{v}
%cc{v} = OpCompositeConstruct %v2uint %uint_32 %y{v}
%cd{v} = OpCompositeConstruct %v2uint %uint_48 %y{v}
%pa{v} = OpBitcast %ptr_fn %a{v}
%pb{v} = OpBitcast %ptr_fn %b{v}
%pc{v} = OpBitcast %ptr_fn %c{v}
%pd{v} = OpBitcast %ptr_fn %d{v}
OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src{v} %uint_128 %n{v} %uint_128 %ca{v} %pa{v}
OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src{v} %uint_128 %n{v} %uint_128 %cb{v} %pb{v}
OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src{v} %uint_128 %n{v} %uint_128 %cc{v} %pc{v}
OpSubgroup2DBlockLoadINTEL %uint_2 %uint_16 %uint_16 %uint_1 %src{v} %uint_128 %n{v} %uint_128 %cd{v} %pd{v}
%in{v} = OpIAdd %uint %i{v} %uint_1
%t{v} = OpULessThan %bool %in{v} %uint_4
OpBranchConditional %t{v} %l{v} %x{v}
%x{v} = OpLabel
OpReturn
OpFunctionEnd
""")
out.close()
print(f"{kernels} kernels")
