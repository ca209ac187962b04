// Workspace discovery (DECISIONS D5), artifact loading and workspace
// metadata, all against MemoryFileSystem (no disk).
#include "small/model/workspace.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <string_view>

#include "small/base/filesystem.hpp"
#include "support/fixtures.hpp"

namespace small {
namespace {

using testing::contains;

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

void add_workspace(MemoryFileSystem& fs, const std::string& root) {
    const std::string d = root + "/.small/";
    fs.add_file(d + "intent.small.yml", "small_version: \"1.0.0\"\nowner: human\nintent: build it\n");
    fs.add_file(d + "constraints.small.yml", "small_version: \"1.0.0\"\nowner: human\nconstraints: []\n");
    fs.add_file(d + "plan.small.yml", "small_version: \"1.0.0\"\nowner: agent\ntasks: []\n");
    fs.add_file(d + "progress.small.yml", "small_version: \"1.0.0\"\nowner: agent\nentries: []\n");
    fs.add_file(d + "handoff.small.yml", "small_version: \"1.0.0\"\nowner: agent\nsummary: none\n");
}

WorkspacePaths paths_at(const std::string& root, const std::string& cwd) {
    MemoryFileSystem fs;
    fs.add_directory(root + "/.small");
    return locate_workspace(fs, std::nullopt, cwd);
}

// ------------------------------------------------------------ names

TEST(WorkspaceNames, ArtifactNamesInCanonicalOrder) {
    ASSERT_EQ(kArtifactTypes.size(), 5u);
    const char* expected[] = {"intent", "constraints", "plan", "progress", "handoff"};
    for (std::size_t i = 0; i < kArtifactTypes.size(); ++i) {
        EXPECT_EQ(artifact_name(kArtifactTypes[i]), expected[i]);
        EXPECT_EQ(artifact_file_name(kArtifactTypes[i]), std::string(expected[i]) + ".small.yml");
    }
    EXPECT_EQ(kWorkspaceFileName, "workspace.small.yml");
}

TEST(WorkspaceNames, PathsAndDisplay) {
    WorkspacePaths ws;
    ws.root = "/ws";
    ws.small_dir = "/ws/.small";
    ws.display_prefix = "sub/";
    EXPECT_EQ(ws.path_of("plan.small.yml"), "/ws/.small/plan.small.yml");
    EXPECT_EQ(ws.display_of("plan.small.yml"), "sub/.small/plan.small.yml");
}

// ------------------------------------------------------------ locate_workspace

TEST(WorkspaceLocate, DirAbsoluteWins) {
    MemoryFileSystem fs;
    fs.add_directory("/a/.small");
    fs.add_directory("/b/.small");
    const WorkspacePaths ws = locate_workspace(fs, std::string("/b"), "/a");
    EXPECT_EQ(ws.root, "/b");
    EXPECT_EQ(ws.small_dir, "/b/.small");
    EXPECT_EQ(ws.display_prefix, "/b/");
}

TEST(WorkspaceLocate, DirRelativeToCwd) {
    MemoryFileSystem fs;
    fs.add_directory("/home/u/proj/.small");
    const WorkspacePaths ws = locate_workspace(fs, std::string("proj"), "/home/u");
    EXPECT_EQ(ws.root, "/home/u/proj");
    EXPECT_EQ(ws.small_dir, "/home/u/proj/.small");
    EXPECT_EQ(ws.display_prefix, "proj/");
    EXPECT_EQ(ws.display_of("intent.small.yml"), "proj/.small/intent.small.yml");

    const WorkspacePaths up = locate_workspace(fs, std::string("../other"), "/home/u");
    EXPECT_EQ(up.root, "/home/other");
    EXPECT_EQ(up.display_prefix, "/home/other/");

    const WorkspacePaths dot = locate_workspace(fs, std::string("."), "/home/u/proj");
    EXPECT_EQ(dot.root, "/home/u/proj");
    EXPECT_EQ(dot.display_prefix, "");

    const WorkspacePaths messy = locate_workspace(fs, std::string("./proj//sub/../"), "/home/u");
    EXPECT_EQ(messy.root, "/home/u/proj");
}

TEST(WorkspaceLocate, DirNamingTheSmallFolderResolvesToItsParent) {
    MemoryFileSystem fs;
    fs.add_directory("/x/proj/.small");
    EXPECT_EQ(locate_workspace(fs, std::string("/x/proj/.small"), "/").root, "/x/proj");
    EXPECT_EQ(locate_workspace(fs, std::string("/x/proj/.small/"), "/").root, "/x/proj");
    EXPECT_EQ(locate_workspace(fs, std::string("proj/.small"), "/x").root, "/x/proj");
    EXPECT_EQ(locate_workspace(fs, std::string(".small"), "/x/proj").root, "/x/proj");
    EXPECT_EQ(locate_workspace(fs, std::string(".small"), "/x/proj").display_prefix, "");
    EXPECT_EQ(locate_workspace(fs, std::string("proj/.small"), "/x").small_dir, "/x/proj/.small");
}

TEST(WorkspaceLocate, DirWithoutSmallFolderIsStillTheRoot) {
    MemoryFileSystem fs;
    fs.add_directory("/a/.small");
    // --dir does not walk up: the caller reports the missing .small/.
    const WorkspacePaths ws = locate_workspace(fs, std::string("/a/b/c"), "/a");
    EXPECT_EQ(ws.root, "/a/b/c");
    EXPECT_EQ(ws.small_dir, "/a/b/c/.small");
}

TEST(WorkspaceLocate, EmptyDirMeansNoDir) {
    MemoryFileSystem fs;
    fs.add_directory("/ws/.small");
    EXPECT_EQ(locate_workspace(fs, std::string(""), "/ws/src").root, "/ws");
}

TEST(WorkspaceLocate, WalksUpToTheNearestAncestor) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    fs.add_directory("/ws/inner/.small");
    const WorkspacePaths deep = locate_workspace(fs, std::nullopt, "/ws/src/lib/deep");
    EXPECT_EQ(deep.root, "/ws");
    EXPECT_EQ(deep.small_dir, "/ws/.small");
    EXPECT_EQ(deep.display_prefix, "/ws/");
    const WorkspacePaths here = locate_workspace(fs, std::nullopt, "/ws");
    EXPECT_EQ(here.root, "/ws");
    EXPECT_EQ(here.display_prefix, "");
    const WorkspacePaths nested = locate_workspace(fs, std::nullopt, "/ws/inner/x/y");
    EXPECT_EQ(nested.root, "/ws/inner");
    const WorkspacePaths trailing = locate_workspace(fs, std::nullopt, "/ws/src/");
    EXPECT_EQ(trailing.root, "/ws");
}

TEST(WorkspaceLocate, ImplicitSmallDirectoryFromFiles) {
    MemoryFileSystem fs;
    fs.add_file("/proj/.small/intent.small.yml", "a: 1\n");
    EXPECT_EQ(locate_workspace(fs, std::nullopt, "/proj/a/b").root, "/proj");
}

TEST(WorkspaceLocate, FromInsideTheSmallFolder) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    fs.add_directory("/ws/.small/ext/tool");
    const WorkspacePaths inside = locate_workspace(fs, std::nullopt, "/ws/.small");
    EXPECT_EQ(inside.root, "/ws");
    EXPECT_EQ(inside.small_dir, "/ws/.small");
    EXPECT_EQ(inside.display_prefix, "/ws/");
    EXPECT_EQ(locate_workspace(fs, std::nullopt, "/ws/.small/ext/tool").root, "/ws");
}

TEST(WorkspaceLocate, NoSmallAnywhereMeansCwd) {
    MemoryFileSystem fs;
    fs.add_directory("/elsewhere/.small");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/nowhere/x");
    EXPECT_EQ(ws.root, "/nowhere/x");
    EXPECT_EQ(ws.small_dir, "/nowhere/x/.small");
    EXPECT_EQ(ws.display_prefix, "");
}

TEST(WorkspaceLocate, AFileNamedSmallIsNotAWorkspace) {
    MemoryFileSystem fs;
    fs.add_file("/a/.small", "not a directory");
    EXPECT_EQ(locate_workspace(fs, std::nullopt, "/a/b").root, "/a/b");
}

TEST(WorkspaceLocate, SmallAtTheFilesystemRoot) {
    MemoryFileSystem fs;
    fs.add_directory("/.small");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/");
    EXPECT_EQ(ws.root, "/");
    EXPECT_EQ(ws.small_dir, "/.small");
    EXPECT_EQ(ws.display_prefix, "");
    EXPECT_EQ(ws.path_of("plan.small.yml"), "/.small/plan.small.yml");
    EXPECT_EQ(locate_workspace(fs, std::nullopt, "/home/u").root, "/");
}

TEST(WorkspaceLocate, DisplayPrefix) {
    EXPECT_EQ(paths_at("/ws", "/ws").display_prefix, "");
    MemoryFileSystem fs;
    EXPECT_EQ(locate_workspace(fs, std::string("/ws/sub"), "/ws").display_prefix, "sub/");
    EXPECT_EQ(locate_workspace(fs, std::string("/ws/a/b"), "/ws").display_prefix, "a/b/");
    EXPECT_EQ(locate_workspace(fs, std::string("/ws"), "/ws/sub").display_prefix, "/ws/");
    // A sibling sharing a name prefix is not "below" the cwd.
    EXPECT_EQ(locate_workspace(fs, std::string("/wsx"), "/ws").display_prefix, "/wsx/");
    EXPECT_EQ(locate_workspace(fs, std::string("/ws"), "/").display_prefix, "ws/");
    EXPECT_EQ(locate_workspace(fs, std::string("/ws"), "/ws/").display_prefix, "");
}

TEST(WorkspaceLocate, DisplayPrefixForTheFilesystemRoot) {
    // Workspace at "/" seen from elsewhere: files display as "/.small/...".
    MemoryFileSystem fs;
    fs.add_directory("/.small");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/home/u");
    EXPECT_EQ(ws.root, "/");
    EXPECT_EQ(ws.display_of("plan.small.yml"), "/.small/plan.small.yml");
}

// ------------------------------------------------------------ load_artifacts

TEST(WorkspaceArtifacts, AllFivePresent) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/ws");
    const ArtifactSet set = load_artifacts(fs, ws);
    EXPECT_TRUE(set.complete());
    EXPECT_TRUE(set.errors.empty());
    for (ArtifactType type : kArtifactTypes) {
        const Artifact* a = set.get(type);
        ASSERT_NE(a, nullptr) << artifact_name(type);
        EXPECT_EQ(a->type, type);
        EXPECT_EQ(a->path, "/ws/.small/" + artifact_file_name(type));
        EXPECT_EQ(a->display, ".small/" + artifact_file_name(type));
        EXPECT_TRUE(set.root(type).is_mapping()) << artifact_name(type);
        EXPECT_EQ(set.root(type).find("small_version").as_string(), "1.0.0");
    }
    EXPECT_EQ(set.root(ArtifactType::Intent).find("intent").as_string(), "build it");
    EXPECT_TRUE(set.root(ArtifactType::Plan).find("tasks").is_sequence());
}

TEST(WorkspaceArtifacts, DisplayUsesThePrefix) {
    MemoryFileSystem fs;
    add_workspace(fs, "/home/u/proj");
    const WorkspacePaths ws = locate_workspace(fs, std::string("proj"), "/home/u");
    const ArtifactSet set = load_artifacts(fs, ws);
    ASSERT_TRUE(set.complete());
    EXPECT_EQ(set.get(ArtifactType::Handoff)->display, "proj/.small/handoff.small.yml");
    EXPECT_EQ(set.get(ArtifactType::Handoff)->path, "/home/u/proj/.small/handoff.small.yml");
}

TEST(WorkspaceArtifacts, MissingFile) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    MemoryFileSystem partial;
    for (ArtifactType type : kArtifactTypes) {
        if (type == ArtifactType::Plan) continue;
        const std::string path = "/ws/.small/" + artifact_file_name(type);
        partial.add_file(path, *fs.read_file(path));
    }
    const WorkspacePaths ws = locate_workspace(partial, std::nullopt, "/ws");
    const ArtifactSet set = load_artifacts(partial, ws);
    EXPECT_FALSE(set.complete());
    ASSERT_EQ(set.errors.size(), 1u);
    const Error& e = set.errors[0];
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.file, ".small/plan.small.yml");
    EXPECT_TRUE(starts_with(e.message, "file is missing")) << e.message;
    EXPECT_EQ(set.get(ArtifactType::Plan), nullptr);
    EXPECT_FALSE(set.root(ArtifactType::Plan).valid());
    EXPECT_NE(set.get(ArtifactType::Intent), nullptr);
    EXPECT_NE(set.get(ArtifactType::Handoff), nullptr);
}

TEST(WorkspaceArtifacts, ErrorsComeInCanonicalOrder) {
    MemoryFileSystem fs;
    fs.add_file("/ws/.small/plan.small.yml", "tasks: []\n");
    fs.add_file("/ws/.small/constraints.small.yml", "constraints: []\n");
    fs.add_file("/ws/.small/progress.small.yml", "entries: []\n");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/ws");
    const ArtifactSet set = load_artifacts(fs, ws);
    ASSERT_EQ(set.errors.size(), 2u);
    EXPECT_EQ(set.errors[0].file, ".small/intent.small.yml");
    EXPECT_EQ(set.errors[1].file, ".small/handoff.small.yml");
}

// A verdict reads the log beside the other four (load_artifacts_but_progress,
// then add_progress); the errors must come in the same order as load_artifacts.
TEST(WorkspaceArtifacts, LogLoadedLastKeepsCanonicalErrorOrder) {
    MemoryFileSystem fs;
    fs.add_file("/ws/.small/constraints.small.yml", "constraints: []\n");
    fs.add_file("/ws/.small/plan.small.yml", "tasks: []\n");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/ws");
    ArtifactSet set = load_artifacts_but_progress(fs, ws);
    ASSERT_EQ(set.errors.size(), 2u);
    add_progress(set, fs, ws, std::nullopt);
    const ArtifactSet whole = load_artifacts(fs, ws);
    ASSERT_EQ(set.errors.size(), 3u);
    ASSERT_EQ(whole.errors.size(), 3u);
    const char* expected[] = {".small/intent.small.yml", ".small/progress.small.yml", ".small/handoff.small.yml"};
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(set.errors[i].file, expected[i]);
        EXPECT_EQ(whole.errors[i].file, expected[i]);
    }
}

TEST(WorkspaceArtifacts, AddProgressTakesTheLogGiven) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    const WorkspacePaths ws = locate_workspace(fs, std::nullopt, "/ws");
    ArtifactSet set = load_artifacts_but_progress(fs, ws);
    EXPECT_EQ(set.get(ArtifactType::Progress), nullptr);
    Result<Document> doc = load_yaml_file(fs, ws.artifact_path(ArtifactType::Progress), "given");
    ASSERT_TRUE(doc);
    add_progress(set, fs, ws, Artifact{ArtifactType::Progress, "p", "given", std::move(*doc)});
    ASSERT_TRUE(set.complete());
    ASSERT_NE(set.get(ArtifactType::Progress), nullptr);
    EXPECT_EQ(set.get(ArtifactType::Progress)->display, "given");
    EXPECT_NE(set.get(ArtifactType::Intent), nullptr);
}

TEST(WorkspaceArtifacts, YamlErrorCarriesPosition) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    fs.add_file("/ws/.small/progress.small.yml", "entries:\n  - task: a\n    task: b\n");
    const ArtifactSet set = load_artifacts(fs, locate_workspace(fs, std::nullopt, "/ws"));
    ASSERT_EQ(set.errors.size(), 1u);
    const Error& e = set.errors[0];
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.file, ".small/progress.small.yml");
    EXPECT_EQ(e.line, 3u);
    EXPECT_EQ(e.column, 5u);
    EXPECT_TRUE(contains(e.message, "duplicate key")) << e.message;
    EXPECT_EQ(set.get(ArtifactType::Progress), nullptr);
    EXPECT_EQ(e.describe().rfind(".small/progress.small.yml:3:5: ", 0), 0u) << e.describe();
}

TEST(WorkspaceArtifacts, SyntaxErrorCarriesPosition) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    fs.add_file("/ws/.small/handoff.small.yml", "summary: ok\nnext:\n  - a\n - b\n");
    const ArtifactSet set = load_artifacts(fs, locate_workspace(fs, std::nullopt, "/ws"));
    ASSERT_EQ(set.errors.size(), 1u);
    EXPECT_EQ(set.errors[0].kind, Error::Kind::Invalid);
    EXPECT_EQ(set.errors[0].file, ".small/handoff.small.yml");
    EXPECT_GE(set.errors[0].line, 4u);  // exact position: YamlErrors.SyntaxErrorPositionsAreExact
    EXPECT_GE(set.errors[0].column, 1u);
    EXPECT_TRUE(contains(set.errors[0].message, "YAML syntax error")) << set.errors[0].message;
    EXPECT_EQ(set.get(ArtifactType::Handoff), nullptr);
}

TEST(WorkspaceArtifacts, RootMustBeAMapping) {
    struct Case {
        const char* content;
        const char* got;
        unsigned line;
    };
    const Case cases[] = {
        {"- a\n- b\n", "got a list", 1},
        {"just text\n", "got a string", 1},
        {"# comment\n42\n", "integer", 2},
        {"", "no content", 1},
        {"# only a comment\n", "no content", 1},
    };
    for (const Case& c : cases) {
        MemoryFileSystem fs;
        add_workspace(fs, "/ws");
        fs.add_file("/ws/.small/intent.small.yml", c.content);
        const ArtifactSet set = load_artifacts(fs, locate_workspace(fs, std::nullopt, "/ws"));
        ASSERT_EQ(set.errors.size(), 1u) << c.content;
        const Error& e = set.errors[0];
        EXPECT_EQ(e.kind, Error::Kind::Invalid) << c.content;
        EXPECT_EQ(e.file, ".small/intent.small.yml");
        EXPECT_TRUE(contains(e.message, "must be a YAML mapping")) << e.message;
        EXPECT_TRUE(contains(e.message, c.got)) << e.message;
        EXPECT_EQ(e.line, c.line) << c.content;
        EXPECT_EQ(e.column, 1u) << c.content;
        EXPECT_EQ(set.get(ArtifactType::Intent), nullptr);
    }
}

TEST(WorkspaceArtifacts, DirectoryInPlaceOfAFileIsNotMissing) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    MemoryFileSystem odd;
    for (ArtifactType type : kArtifactTypes) {
        const std::string path = "/ws/.small/" + artifact_file_name(type);
        if (type == ArtifactType::Constraints) odd.add_directory(path);
        else odd.add_file(path, *fs.read_file(path));
    }
    const ArtifactSet set = load_artifacts(odd, locate_workspace(odd, std::nullopt, "/ws"));
    ASSERT_EQ(set.errors.size(), 1u);
    // Invalid state (exit 1) in every command, not an I/O error.
    EXPECT_EQ(set.errors[0].kind, Error::Kind::Invalid);
    EXPECT_EQ(set.errors[0].file, ".small/constraints.small.yml");
    EXPECT_TRUE(starts_with(set.errors[0].message, "is a directory")) << set.errors[0].message;
}

TEST(WorkspaceArtifacts, LoadYamlFileDirectly) {
    MemoryFileSystem fs;
    fs.add_file("/f.yml", "a: [1, 2]\n");
    auto ok = load_yaml_file(fs, "/f.yml", "f.yml");
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->root().find("a").size(), 2u);
    auto missing = load_yaml_file(fs, "/g.yml", "shown/g.yml");
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().file, "shown/g.yml");
    EXPECT_TRUE(starts_with(missing.error().message, "file is missing")) << missing.error().message;
}

// ------------------------------------------------------------ workspace metadata

Result<WorkspaceMetadata> metadata(const std::optional<std::string>& content) {
    MemoryFileSystem fs;
    add_workspace(fs, "/ws");
    if (content) fs.add_file("/ws/.small/workspace.small.yml", *content);
    return load_workspace_metadata(fs, locate_workspace(fs, std::nullopt, "/ws"));
}

TEST(WorkspaceMetadataLoad, MissingFile) {
    const auto r = metadata(std::nullopt);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, Error::Kind::Invalid);
    EXPECT_TRUE(contains(r.error().message, "workspace metadata missing")) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "small init")) << r.error().message;
    EXPECT_EQ(r.error().file, ".small/workspace.small.yml");
}

TEST(WorkspaceMetadataLoad, Kinds) {
    const auto root = metadata(std::string("kind: repo-root\n"));
    ASSERT_TRUE(root.ok()) << root.error().describe();
    EXPECT_EQ(root->kind, WorkspaceKind::RepoRoot);
    EXPECT_EQ(root->run_replay_id, "");
    const auto examples = metadata(std::string("small_version: \"1.0.0\"\nkind: 'examples'\n"));
    ASSERT_TRUE(examples.ok()) << examples.error().describe();
    EXPECT_EQ(examples->kind, WorkspaceKind::Examples);
    EXPECT_EQ(workspace_kind_name(WorkspaceKind::RepoRoot), "repo-root");
    EXPECT_EQ(workspace_kind_name(WorkspaceKind::Examples), "examples");
}

TEST(WorkspaceMetadataLoad, RunReplayId) {
    const std::string id(64, 'a');
    const auto r = metadata("kind: repo-root\nrun:\n  replay_id: " + id + "\n  started_at: x\n");
    ASSERT_TRUE(r.ok()) << r.error().describe();
    EXPECT_EQ(r->run_replay_id, id);
    const auto no_run = metadata(std::string("kind: repo-root\nrun:\n  replay_id: ~\n"));
    ASSERT_TRUE(no_run.ok()) << no_run.error().describe();
    EXPECT_EQ(no_run->run_replay_id, "");
}

// One rule for verify (a WS-2 warning) and every write (a refusal): what is
// there must be an id. The metadata still loads; the problem rides along.
TEST(WorkspaceMetadataLoad, RunReplayIdThatIsNoIdIsAnErrorAtItsPosition) {
    const struct {
        std::string text;
        unsigned line, column;
    } cases[] = {
        {"kind: repo-root\nrun: 5\n", 2, 6},
        {"kind: repo-root\nrun:\n  replay_id: 123\n", 3, 14},
        {"kind: repo-root\nrun:\n  replay_id: \"abc\"\n", 3, 15},  // quoted: the text's first character
        {"kind: repo-root\nrun:\n  replay_id: \"" + std::string(63, 'a') + "g\"\n", 3, 15},
    };
    for (const auto& c : cases) {
        const auto r = metadata(c.text);
        ASSERT_TRUE(r.ok()) << c.text;
        EXPECT_EQ(r->run_replay_id, "") << c.text;
        ASSERT_TRUE(r->run_id_error.has_value()) << c.text;
        const Error& e = *r->run_id_error;
        EXPECT_EQ(e.file, ".small/workspace.small.yml");
        EXPECT_EQ(e.line, c.line) << c.text;
        EXPECT_EQ(e.column, c.column) << c.text;
        EXPECT_EQ(e.rule, "WS-2");
        EXPECT_TRUE(contains(e.hint, "run.replay_id")) << e.hint;
    }
}

TEST(WorkspaceMetadataLoad, InvalidKind) {
    const auto r = metadata(std::string("small_version: \"1.0.0\"\nkind: bogus\n"));
    ASSERT_FALSE(r.ok());
    const Error& e = r.error();
    EXPECT_EQ(e.kind, Error::Kind::Invalid);
    EXPECT_EQ(e.file, ".small/workspace.small.yml");
    EXPECT_EQ(e.line, 2u);
    EXPECT_EQ(e.column, 7u);
    EXPECT_TRUE(contains(e.message, "bogus")) << e.message;
    EXPECT_TRUE(contains(e.message, "valid kinds")) << e.message;
    EXPECT_TRUE(contains(e.message, "repo-root")) << e.message;
    EXPECT_TRUE(contains(e.message, "examples")) << e.message;
}

TEST(WorkspaceMetadataLoad, KindIsCaseSensitiveAndMustBeAString) {
    for (const char* content : {"kind: Examples\n", "kind: REPO-ROOT\n", "kind: [examples]\n", "kind: 1\n",
                                "kind: ''\n"}) {
        const auto r = metadata(std::string(content));
        ASSERT_FALSE(r.ok()) << content;
        EXPECT_TRUE(contains(r.error().message, "valid kinds")) << r.error().message;
        EXPECT_EQ(r.error().line, 1u) << content;
    }
}

TEST(WorkspaceMetadataLoad, EmptyKindIsInvalid) {
    const auto r = metadata(std::string("kind:\n"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "valid kinds")) << r.error().message;
    EXPECT_EQ(r.error().file, ".small/workspace.small.yml");
}

TEST(WorkspaceMetadataLoad, EmptyKindErrorHasAPosition) {
    const auto r = metadata(std::string("small_version: \"1.0.0\"\nkind:\n"));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().line, 2u);
    EXPECT_GE(r.error().column, 5u);
}

TEST(WorkspaceMetadataLoad, MissingKind) {
    const auto r = metadata(std::string("small_version: \"1.0.0\"\nrun:\n  replay_id: abc\n"));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(contains(r.error().message, "valid kinds")) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "repo-root")) << r.error().message;
    EXPECT_TRUE(contains(r.error().message, "examples")) << r.error().message;
    EXPECT_EQ(r.error().file, ".small/workspace.small.yml");
    EXPECT_EQ(r.error().line, 1u);
    EXPECT_EQ(r.error().column, 1u);
}

TEST(WorkspaceMetadataLoad, BadYamlAndNonMapping) {
    const auto dup = metadata(std::string("kind: examples\nkind: repo-root\n"));
    ASSERT_FALSE(dup.ok());
    EXPECT_EQ(dup.error().line, 2u);
    EXPECT_TRUE(contains(dup.error().message, "duplicate key")) << dup.error().message;
    const auto list = metadata(std::string("- kind: examples\n"));
    ASSERT_FALSE(list.ok());
    EXPECT_TRUE(contains(list.error().message, "must be a YAML mapping")) << list.error().message;
    const auto empty = metadata(std::string(""));
    ASSERT_FALSE(empty.ok());
    EXPECT_TRUE(contains(empty.error().message, "must be a YAML mapping")) << empty.error().message;
}

// ------------------------------------------------------------ scopes

TEST(WorkspaceScopeParse, AcceptsNamesCaseAndSpaceInsensitively) {
    const std::pair<const char*, WorkspaceScope> cases[] = {
        {"root", WorkspaceScope::Root},         {"ROOT", WorkspaceScope::Root},
        {" Root ", WorkspaceScope::Root},       {"examples", WorkspaceScope::Examples},
        {"Examples", WorkspaceScope::Examples}, {"\texamples\n", WorkspaceScope::Examples},
        {"any", WorkspaceScope::Any},           {"ANY", WorkspaceScope::Any},
    };
    for (const auto& [text, expected] : cases) {
        const auto r = parse_workspace_scope(text);
        ASSERT_TRUE(r.ok()) << "'" << text << "'";
        EXPECT_EQ(*r, expected) << "'" << text << "'";
    }
}

TEST(WorkspaceScopeParse, RejectsOtherValues) {
    for (const char* text : {"", "all", "repo-root", "example", "roots", "*"}) {
        const auto r = parse_workspace_scope(text);
        ASSERT_FALSE(r.ok()) << "'" << text << "'";
        EXPECT_EQ(r.error().kind, Error::Kind::Usage) << text;
        EXPECT_TRUE(contains(r.error().message, "root")) << r.error().message;
        EXPECT_TRUE(contains(r.error().message, "examples")) << r.error().message;
        EXPECT_TRUE(contains(r.error().message, "any")) << r.error().message;
    }
    EXPECT_TRUE(contains(parse_workspace_scope("bogus").error().message, "bogus"));
}

TEST(WorkspaceScopeParse, Names) {
    EXPECT_EQ(workspace_scope_name(WorkspaceScope::Root), "root");
    EXPECT_EQ(workspace_scope_name(WorkspaceScope::Examples), "examples");
    EXPECT_EQ(workspace_scope_name(WorkspaceScope::Any), "any");
    for (WorkspaceScope s : {WorkspaceScope::Root, WorkspaceScope::Examples, WorkspaceScope::Any}) {
        const auto r = parse_workspace_scope(workspace_scope_name(s));
        ASSERT_TRUE(r.ok());
        EXPECT_EQ(*r, s);
    }
}

TEST(WorkspaceScopeCheck, Matrix) {
    WorkspacePaths ws;
    ws.root = "/ws";
    ws.small_dir = "/ws/.small";
    ws.display_prefix = "";
    WorkspaceMetadata repo;
    repo.kind = WorkspaceKind::RepoRoot;
    WorkspaceMetadata examples;
    examples.kind = WorkspaceKind::Examples;

    EXPECT_TRUE(check_workspace_scope(repo, WorkspaceScope::Root, ws).ok());
    EXPECT_FALSE(check_workspace_scope(repo, WorkspaceScope::Examples, ws).ok());
    EXPECT_TRUE(check_workspace_scope(repo, WorkspaceScope::Any, ws).ok());
    EXPECT_FALSE(check_workspace_scope(examples, WorkspaceScope::Root, ws).ok());
    EXPECT_TRUE(check_workspace_scope(examples, WorkspaceScope::Examples, ws).ok());
    EXPECT_TRUE(check_workspace_scope(examples, WorkspaceScope::Any, ws).ok());

    const Status refused = check_workspace_scope(examples, WorkspaceScope::Root, ws);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(refused.error().file, ".small/workspace.small.yml");
    EXPECT_TRUE(contains(refused.error().message, "\"examples\"")) << refused.error().message;
    EXPECT_TRUE(contains(refused.error().message, "--workspace examples")) << refused.error().message;
    const Status refused2 = check_workspace_scope(repo, WorkspaceScope::Examples, ws);
    ASSERT_FALSE(refused2.ok());
    EXPECT_TRUE(contains(refused2.error().message, "\"repo-root\"")) << refused2.error().message;
    EXPECT_TRUE(contains(refused2.error().message, "--workspace root")) << refused2.error().message;
}

}  // namespace
}  // namespace small

namespace small {
namespace {

// A file system whose first read returns a torn file, as a reader racing an
// in-place progress append would see it, and whose later reads the whole file.
class RacingFileSystem final : public FileSystem {
public:
    RacingFileSystem(std::string torn, std::string whole) : torn_(std::move(torn)), whole_(std::move(whole)) {}
    Result<std::string> read_file(const std::string&) const override { return reads_++ == 0 ? torn_ : whole_; }
    bool file_exists(const std::string&) const override { return true; }
    bool directory_exists(const std::string&) const override { return false; }
    Result<std::vector<DirEntry>> list_directory(const std::string&) const override { return std::vector<DirEntry>{}; }
    int reads() const { return reads_; }

private:
    std::string torn_, whole_;
    mutable int reads_ = 0;
};

TEST(WorkspaceLoadRace, ATornLastEntryIsReadAgain) {
    const std::string whole = "entries:\n  - task_id: \"a\"\n    evidence: \"done\"\n";
    RacingFileSystem fs(whole.substr(0, whole.size() - 12), whole);
    Result<Document> doc = load_yaml_file(fs, "/ws/.small/progress.small.yml", "p");
    ASSERT_TRUE(doc.ok()) << doc.error().describe();
    EXPECT_EQ(fs.reads(), 2);
    EXPECT_EQ(doc->root().find("entries").item(0).find("evidence").as_string(), "done");
}

TEST(WorkspaceLoadRace, AFileThatStaysBrokenIsReported) {
    const std::string broken = "entries:\n  - task_id: \"a\n";
    RacingFileSystem fs(broken, broken);
    Result<Document> doc = load_yaml_file(fs, "/ws/.small/progress.small.yml", "p");
    ASSERT_FALSE(doc.ok());
    EXPECT_EQ(fs.reads(), 2);
    EXPECT_GT(doc.error().line, 0u);
}

}  // namespace
}  // namespace small

// Issue 39: the log read in windows visits what a whole read visits, in
// order, whatever the layout (a layout windows cannot follow is read whole).
namespace small {
namespace {

std::vector<std::string> visited(const MemoryFileSystem& fs, const LogWindows& windows, int& restarts) {
    std::vector<std::string> seen;
    const Status read = for_each_log_entry(
        fs, "/w/.small/progress.small.yml", ".small/progress.small.yml",
        [&] {
            ++restarts;
            seen.clear();
        },
        [&](NodeRef entry) {
            seen.push_back(std::string(entry.find("task_id").as_string()) + "/" +
                           std::to_string(entry.find("evidence").as_string().size()));
            return true;
        },
        windows);
    if (!read) seen.push_back("error: " + read.error().message);
    return seen;
}

TEST(LogEntryWindows, VisitTheEntriesAWholeReadVisits) {
    std::string entries;
    for (int i = 1; i <= 40; ++i) {
        entries += "  - task_id: \"t" + std::to_string(i) + "\"\n    evidence: \"" + std::string(i % 7 * 5, 'x') +
                   "\"\n";
        if (i % 9 == 0) entries += "    notes: |\n      a block\n      of lines\n";
    }
    const std::string head = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    const std::vector<std::string> logs = {
        head + entries,
        "# a comment\n" + head + entries,
        head + "  # a comment before the first entry\n" + entries,                   // read whole
        head + entries + "trailing: key\n",                                           // read whole
        head + entries.substr(0, entries.size() - 1),                                 // no final line break
        "small_version: \"1.0.0\"\nowner: &o \"agent\"\nentries:\n" + entries + "  - task_id: *o\n",  // an alias
        head + entries + "  - task_id: [broken\n",                                    // a parse error
        "small_version: \"1.0.0\"\nentries:\n- task_id: \"indentless\"\n- task_id: \"second\"\n",
    };
    int windowed_whole_passes = 0;
    for (const std::string& log : logs) {
        MemoryFileSystem fs;
        fs.add_file("/w/.small/progress.small.yml", log);
        int restarts = 0;
        const std::vector<std::string> whole = visited(fs, LogWindows{UINT64_MAX, 1}, restarts);
        for (std::size_t window : {1u, 40u, 150u, 1000u, 100000u}) {
            int windowed_restarts = 0;
            EXPECT_EQ(visited(fs, LogWindows{0, window}, windowed_restarts), whole) << "window " << window << "\n" << log;
            windowed_whole_passes += windowed_restarts == 0;
        }
    }
    EXPECT_GT(windowed_whole_passes, 10);  // not vacuous: many were read in windows to the end
}

// A visitor that stops early still gets the error a later window's parse
// gives, as from a whole read.
TEST(LogEntryWindows, AStopEarlyStillReportsALaterParseError) {
    std::string log = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (int i = 0; i < 30; ++i) log += "  - task_id: \"t" + std::to_string(i) + "\"\n";
    log += "  - task_id: [broken\n";
    MemoryFileSystem fs;
    fs.add_file("/w/.small/progress.small.yml", log);
    const Status read = for_each_log_entry(
        fs, "/w/.small/progress.small.yml", ".small/progress.small.yml", [] {}, [](NodeRef) { return false; },
        LogWindows{0, 40});
    EXPECT_FALSE(read.ok());
}

// A window at a time is held, so a log longer than the file system reads
// whole (kMaxFileBytes on a disk; the fake's limit here) is visited in
// windows; a layout that needs the whole read is refused with what to do.
TEST(LogEntryWindows, ALogLargerThanAWholeReadIsVisitedInWindows) {
    std::string log = "small_version: \"1.0.0\"\nowner: \"agent\"\nentries:\n";
    for (int i = 0; i < 200; ++i) log += "  - task_id: \"t" + std::to_string(i) + "\"\n    evidence: \"done\"\n";
    MemoryFileSystem fs;
    fs.add_file("/w/.small/progress.small.yml", log);
    fs.set_max_read_bytes(log.size() / 4);
    int restarts = 0;
    const std::vector<std::string> seen = visited(fs, LogWindows{0, 100}, restarts);
    ASSERT_EQ(seen.size(), 200u) << (seen.empty() ? "" : seen.back());
    EXPECT_EQ(seen.back(), "t199/4");
    EXPECT_EQ(restarts, 0);

    fs.add_file("/w/.small/progress.small.yml", log + "trailing: key\n");  // windows cannot follow it
    const std::vector<std::string> refused = visited(fs, LogWindows{0, 100}, restarts);
    ASSERT_FALSE(refused.empty());
    EXPECT_NE(refused.back().find("small reads whole"), std::string::npos) << refused.back();
    Result<Document> whole = load_whole_log(fs, "/w/.small/progress.small.yml", ".small/progress.small.yml");
    ASSERT_FALSE(whole);
    EXPECT_EQ(whole.error().kind, Error::Kind::Invalid);
    EXPECT_EQ(whole.error().file, ".small/progress.small.yml");
    EXPECT_NE(whole.error().hint.find("small archive"), std::string::npos) << whole.error().hint;
}

}  // namespace
}  // namespace small
