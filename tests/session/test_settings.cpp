// The Probing dock's settings (ui/session/settings.h): what is saved comes back,
// under the keys earlier versions used ("probing/...", a comma list of tasks,
// "probing/model" for a version with one model).
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QSettings>
#include <QTemporaryDir>

#include "ui/session/settings.h"

using namespace treelens;

namespace {

/// The settings of this test in a temporary folder.
struct TemporarySettings {
    QTemporaryDir dir;
    TemporarySettings()
    {
        // No application object needed: the names and paths are static.
        QCoreApplication::setOrganizationName(QStringLiteral("TreeLensTests"));
        QCoreApplication::setApplicationName(QStringLiteral("SettingsTest"));
        QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir.path());
        QSettings().clear();
    }
};

} // namespace

TEST(ProbingSettings, FirstUseHasTheDefaults)
{
    TemporarySettings scope;
    const ProbingSettings s = Settings::probing();
    EXPECT_FALSE(s.models.has_value());
    EXPECT_FALSE(s.model.has_value());
    EXPECT_FALSE(s.tasks.has_value());
    EXPECT_EQ(s.layers, QStringLiteral("all"));
    EXPECT_EQ(s.seed, 1);
    EXPECT_EQ(s.epochs, 0);
    EXPECT_FALSE(s.useOpenCorpus);
}

TEST(ProbingSettings, SavedSettingsComeBack)
{
    TemporarySettings scope;
    ProbingSettings s;
    s.train = QStringLiteral("/data/train.conllu");
    s.test = QStringLiteral("/data/test.conllu");
    s.models = QStringList{QStringLiteral("/m/a.safetensors"), QStringLiteral("/m/b.safetensors")};
    s.checkedModels = {QStringLiteral("/m/b.safetensors")};
    s.useOpenCorpus = true;
    s.tasks = QStringList{QStringLiteral("sentlen"), QStringLiteral("head-accuracy")};
    s.layers = QStringLiteral("0,2");
    s.pooling = QStringLiteral("mean");
    s.control = true;
    s.seed = 42;
    s.epochs = 7;
    s.rank = 16;
    Settings::setProbing(s);

    // The keys as before: a comma list of tasks, the first checked model for a
    // version with one model.
    QSettings raw;
    EXPECT_EQ(raw.value(QStringLiteral("probing/tasks")).toString(), QStringLiteral("sentlen,head-accuracy"));
    EXPECT_EQ(raw.value(QStringLiteral("probing/model")).toString(), QStringLiteral("/m/b.safetensors"));
    EXPECT_EQ(raw.value(QStringLiteral("probing/seed")).toInt(), 42);

    const ProbingSettings back = Settings::probing();
    EXPECT_EQ(back.train, s.train);
    EXPECT_EQ(back.dev, QString());
    EXPECT_EQ(back.test, s.test);
    EXPECT_EQ(back.models, s.models);
    EXPECT_EQ(back.checkedModels, s.checkedModels);
    EXPECT_EQ(back.model, QStringLiteral("/m/b.safetensors"));
    EXPECT_TRUE(back.useOpenCorpus);
    EXPECT_EQ(back.tasks, s.tasks);
    EXPECT_EQ(back.layers, s.layers);
    EXPECT_EQ(back.pooling, s.pooling);
    EXPECT_TRUE(back.control);
    EXPECT_FALSE(back.randomInit);
    EXPECT_EQ(back.seed, 42);
    EXPECT_EQ(back.epochs, 7);
    EXPECT_EQ(back.rank, 16);

    // No task checked is saved as such, not as "never saved".
    s.tasks = QStringList{};
    Settings::setProbing(s);
    ASSERT_TRUE(Settings::probing().tasks.has_value());
    EXPECT_TRUE(Settings::probing().tasks->isEmpty());
}

TEST(ProbingSettings, AVersionWithOneModel)
{
    TemporarySettings scope;
    QSettings().setValue(QStringLiteral("probing/model"), QStringLiteral("/models/old.safetensors"));
    const ProbingSettings s = Settings::probing();
    EXPECT_FALSE(s.models.has_value());
    EXPECT_EQ(s.model, QStringLiteral("/models/old.safetensors"));
}
