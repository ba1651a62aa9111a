// A hand-written bf16 GEMM in the style of the OpenCL and SYCL GEMMs users bring (issue 42): a
// 2-D work-group of 16x4 invocations, subgroup size 16, so each work-group is four subgroups
// stacked in y. Each subgroup computes an 8x16 tile of C = A * B (A: M x K, B: K x N, row-major
// bf16 as ushort bits; C: M x N float): its rows come from get_global_id(1), its columns from
// get_group_id(0). Per K step of 32: two 8x16 A blocks side by side (fuse-block-loads makes them
// one 8r16x2c load), two 16x16 VNNI-transformed B blocks, two DPAS. Compiled by build.sh.
__attribute__((intel_reqd_sub_group_size(16)))
__attribute__((reqd_work_group_size(16, 4, 1)))
kernel void dpas_2d(global float *C, global ushort *A, global ushort *B, int K)
{
    const int N = get_global_size(0);
    const int M = get_global_size(1) * 8;
    const int m = get_global_id(1) * 8;
    const int n = get_group_id(0) * 16;
    float8 acc = 0;
    for (int k = 0; k < K; k += 32) {
        ushort8 a0, a1;
        uint8 b0, b1;
        intel_sub_group_2d_block_read_16b_8r16x1c(A, K * 2, M, K * 2, (int2)(k, m), (private ushort *)&a0);
        intel_sub_group_2d_block_read_16b_8r16x1c(A, K * 2, M, K * 2, (int2)(k + 16, m), (private ushort *)&a1);
        intel_sub_group_2d_block_read_transform_16b_16r16x1c(B, N * 2, K, N * 2, (int2)(n, k), (private uint *)&b0);
        intel_sub_group_2d_block_read_transform_16b_16r16x1c(B, N * 2, K, N * 2, (int2)(n, k + 16), (private uint *)&b1);
        acc = intel_sub_group_bf16_bf16_matrix_mad_k16(as_short8(a0), as_int8(b0), acc);
        acc = intel_sub_group_bf16_bf16_matrix_mad_k16(as_short8(a1), as_int8(b1), acc);
    }
    intel_sub_group_2d_block_write_32b_8r16x1c(C, N * 4, M, N * 4, (int2)(n, m), (private uint *)&acc);
}
