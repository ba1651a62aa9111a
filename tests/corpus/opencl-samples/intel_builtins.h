// Prototypes of the Intel OpenCL builtins the SimpleOpenCLSamples matrix experiments call, which
// clang-15's opencl-c.h lacks (cl_intel_subgroup_2d_block_io, cl_intel_subgroup_matrix_multiply_
// accumulate and its tf32 variant, cl_intel_subgroups_char block reads), declared overloadable
// so they get the Itanium-mangled names drivers and Intel's translator use; and the macros of
// those extensions, which an Intel PVC device reports, so the samples compile their hardware
// paths (the macros opencl-c.h itself tests are given on build.sh's command line). See README.md.
#pragma once

#define cl_intel_subgroup_2d_block_io 1
#define cl_intel_subgroup_matrix_multiply_accumulate 1
#define cl_intel_subgroup_matrix_multiply_accumulate_tf32 1

#define OVL __attribute__((overloadable))

// 2D block reads/writes/prefetches: (base, width in bytes, height, pitch in bytes, coord, data).
#define BLOCK_READ(NAME, T) \
    void OVL NAME(global void *base, int width, int height, int pitch, int2 coord, private T *dst);
#define BLOCK_WRITE(NAME, T) \
    void OVL NAME(global void *base, int width, int height, int pitch, int2 coord, private T *src);
#define BLOCK_PREFETCH(NAME) \
    void OVL NAME(global void *base, int width, int height, int pitch, int2 coord);

BLOCK_READ(intel_sub_group_2d_block_read_8b_1r32x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_8b_2r32x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_8b_4r32x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_8b_8r32x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_1r16x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_2r16x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_4r16x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_8r16x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_8r16x2c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_16r16x2c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_32r16x1c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_16b_32r16x2c, ushort)
BLOCK_READ(intel_sub_group_2d_block_read_32b_1r8x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_32b_2r8x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_32b_4r8x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_32b_8r8x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_32b_8r16x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_32b_16r16x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_transform_8b_32r16x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_transform_16b_16r16x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_transform_16b_16r16x2c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_transform_16b_32r16x1c, uint)
BLOCK_READ(intel_sub_group_2d_block_read_transform_16b_32r16x2c, uint)
BLOCK_WRITE(intel_sub_group_2d_block_write_32b_1r16x1c, uint)
BLOCK_WRITE(intel_sub_group_2d_block_write_32b_2r16x1c, uint)
BLOCK_WRITE(intel_sub_group_2d_block_write_32b_4r16x1c, uint)
BLOCK_WRITE(intel_sub_group_2d_block_write_32b_8r16x1c, uint)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_16b_8r16x1c)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_16b_8r16x2c)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_16b_16r16x1c)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_16b_16r16x2c)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_16b_32r16x1c)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_16b_32r16x2c)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_32b_8r16x1c)
BLOCK_PREFETCH(intel_sub_group_2d_block_prefetch_32b_16r16x1c)

// Subgroup MMA (cl_intel_subgroup_matrix_multiply_accumulate): subgroup size 8 takes int A
// operands, subgroup size 16 short ones; M = 1, 2, 4, 8 from the vector width.
#define MAD_BF16(AT, CT) CT OVL intel_sub_group_bf16_bf16_matrix_mad_k16(AT a, int8 b, CT acc);
MAD_BF16(int, float) MAD_BF16(int2, float2) MAD_BF16(int4, float4) MAD_BF16(int8, float8)
MAD_BF16(short, float) MAD_BF16(short2, float2) MAD_BF16(short4, float4) MAD_BF16(short8, float8)
#define MAD_I8(AT, CT) CT OVL intel_sub_group_i8_i8_matrix_mad_k32(AT a, int8 b, CT acc);
MAD_I8(int, int) MAD_I8(int2, int2) MAD_I8(int4, int4) MAD_I8(int8, int8)
MAD_I8(short, int) MAD_I8(short2, int2) MAD_I8(short4, int4) MAD_I8(short8, int8)
// tf32 (cl_intel_subgroup_matrix_multiply_accumulate_tf32, subgroup size 16 only).
float OVL intel_sub_group_tf32_tf32_matrix_mad_k8(float a, float8 b, float acc);
float2 OVL intel_sub_group_tf32_tf32_matrix_mad_k8(float a, float8 b, float2 acc);
float4 OVL intel_sub_group_tf32_tf32_matrix_mad_k8(float2 a, float8 b, float4 acc);
float8 OVL intel_sub_group_tf32_tf32_matrix_mad_k8(float4 a, float8 b, float8 acc);

// cl_intel_subgroups_char (not in clang-15's opencl-c.h).
uchar OVL intel_sub_group_block_read_uc(const global uchar *p);
uchar2 OVL intel_sub_group_block_read_uc2(const global uchar *p);
uchar4 OVL intel_sub_group_block_read_uc4(const global uchar *p);
uchar8 OVL intel_sub_group_block_read_uc8(const global uchar *p);
