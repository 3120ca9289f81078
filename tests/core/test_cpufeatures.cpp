// /proc/cpuinfo parsing for the precision choice: real flag lines of three CPUs.
#include <gtest/gtest.h>

#include "core/runtime/cpufeatures.h"

using namespace treelens;

namespace {

std::string cpuinfo(const std::string &model, const std::string &flags, int cpus = 2)
{
    std::string s;
    for (int i = 0; i < cpus; ++i)
        s += "processor\t: " + std::to_string(i) + "\nvendor_id\t: X\nmodel name\t: " + model + "\nflags\t\t: " + flags +
             "\n\n";
    return s;
}

} // namespace

TEST(CpuFeatures, Zen3HasNeitherNativeBf16NorVnni)
{
    // An AMD EPYC (Zen 3) KVM guest: AVX2 and FMA, no AVX-512.
    const auto f = parseCpuInfo(cpuinfo("AMD EPYC", "fpu vme sse sse2 ssse3 fma cx16 sse4_1 sse4_2 avx f16c avx2 bmi2 "
                                                    "vaes vpclmulqdq rdpid fsrm"));
    EXPECT_EQ(f.model, "AMD EPYC");
    EXPECT_EQ(f.logicalCpus, 2);
    EXPECT_TRUE(f.avx2 && f.fma);
    EXPECT_FALSE(f.avx512f);
    EXPECT_FALSE(f.nativeBf16());
    EXPECT_FALSE(f.int8DotProducts());
    EXPECT_EQ(f.flagList(), "avx2 fma");
}

TEST(CpuFeatures, CascadeLakeHasVnniButNoBf16)
{
    const auto f = parseCpuInfo(cpuinfo("Intel(R) Xeon(R) Platinum 8259CL CPU @ 2.50GHz",
                                        "fpu sse2 avx avx2 fma avx512f avx512dq avx512cd avx512bw avx512vl avx512_vnni", 4));
    EXPECT_EQ(f.logicalCpus, 4);
    EXPECT_TRUE(f.avx512f && f.avx512bw && f.avx512Vnni);
    EXPECT_TRUE(f.int8DotProducts());
    EXPECT_FALSE(f.nativeBf16());
}

TEST(CpuFeatures, Zen4AndSapphireRapidsHaveNativeBf16)
{
    const auto zen4 = parseCpuInfo(cpuinfo("AMD EPYC 9R14", "avx2 fma avx512f avx512bw avx512_bf16 avx512_vnni"));
    EXPECT_TRUE(zen4.nativeBf16());
    EXPECT_TRUE(zen4.int8DotProducts());
    const auto spr = parseCpuInfo(cpuinfo("Intel(R) Xeon(R) Platinum 8488C", "avx2 fma avx512f avx_vnni amx_bf16 amx_tile amx_int8"));
    EXPECT_TRUE(spr.nativeBf16());
    EXPECT_TRUE(spr.amxInt8 && spr.avxVnni);
    EXPECT_EQ(spr.flagList(), "avx2 fma avx512f avx_vnni amx_bf16 amx_int8");
}

TEST(CpuFeatures, EmptyOrOddTextIsHarmless)
{
    const auto f = parseCpuInfo("");
    EXPECT_EQ(f.logicalCpus, 0);
    EXPECT_FALSE(f.avx2);
    const auto g = parseCpuInfo("flags:avx2\nno colon here\n: \nmodel name:\n");
    EXPECT_TRUE(g.avx2);
    EXPECT_EQ(g.model, "");
}

TEST(CpuFeatures, ThisMachineIsRead)
{
    const auto &f = cpuFeatures();
    EXPECT_GE(f.logicalCpus, 1);
}
