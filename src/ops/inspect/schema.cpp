#include "small/ops/inspect/schema.hpp"

#include <nlohmann/json.hpp>

#include "small/base/path.hpp"
#include "small/base/text.hpp"
#include "small/check/schema.hpp"
#include "small/model/layout.hpp"
#include "small/store/atomic_file.hpp"

namespace small {

namespace {

// "plan", "plan.schema.json" and "plan.small.yml" all name the plan.
std::string artifact_of(std::string_view word) {
    for (const std::string_view suffix : {std::string_view(".schema.json"), std::string_view(".small.yml")}) {
        if (word.size() > suffix.size() && word.ends_with(suffix)) return std::string(word.substr(0, word.size() - suffix.size()));
    }
    return std::string(word);
}

SchemaText schema_text(const std::string& name) {
    return {name, name + ".schema.json", embedded_schema(name)};
}

// The "$id" of a JSON Schema's text ("" when it is not a JSON object with one).
std::string schema_id(std::string_view text) {
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (!doc.is_object() || !doc.contains("$id") || !doc["$id"].is_string()) return "";
    return doc["$id"].get<std::string>();
}

// What exporting `schema` over `path` would do: created, updated or
// unchanged; a foreign file there is refused unless `force`.
Result<std::string> planned_change(const FileSystem& fs, const std::string& path, const SchemaText& schema, bool force) {
    if (!fs.file_exists(path) || fs.is_symlink(path)) {
        if (fs.stat(path)) return Error::invalid(path + " exists and is not a regular file; remove it or export elsewhere");
        return std::string("created");
    }
    Result<std::string> old = fs.read_file(path);
    if (!old) return old.error();
    if (*old == schema.json) return std::string("unchanged");
    if (!force && schema_id(*old) != schema_id(schema.json)) {
        Error e = Error::invalid(path + " is not a SMALL schema this command wrote (its \"$id\" differs); not replaced");
        e.hint = "export into another folder, or pass --force to replace it";
        return e;
    }
    return std::string("updated");
}

}  // namespace

std::vector<std::string> schema_names() {
    std::vector<std::string> names;
    for (const ArtifactType type : kArtifactTypes) names.emplace_back(artifact_name(type));
    return names;
}

Result<SchemaText> schema_print_command(const std::string& name) {
    const std::string artifact = artifact_of(lower_ascii(trim(name)));
    if (embedded_schema(artifact) != nullptr) return schema_text(artifact);
    std::string message = "unknown schema \"" + name + "\"";
    const std::vector<std::string> near = closest_matches(artifact, schema_names(), 1);
    if (!near.empty()) message += "; did you mean \"" + near.front() + "\"?";
    Error e = Error::usage(message);
    std::string known;
    for (const std::string& n : schema_names()) known += (known.empty() ? "" : ", ") + n;
    e.hint = "the schemas are: " + known;
    return e;
}

Result<SchemaExportResult> schema_export_command(const FileSystem& fs, const std::string& dir, const std::string& cwd,
                                                 bool force) {
    SchemaExportResult result;
    result.dir = normal_dir_path(absolute_path(cwd, dir));
    if (fs.stat(result.dir) && !fs.directory_exists(result.dir)) {
        return Error::invalid(result.dir + " exists and is not a folder; name a folder to export into");
    }
    if (Status inside = refuse_target_inside_small_dir(fs, result.dir, "schema export"); !inside) return inside.error();
    std::vector<SchemaText> schemas;
    for (const std::string& name : editor_schema_names()) {  // issue 41: the editor schemas, workspace's too
        schemas.push_back({name, name + ".schema.json", editor_schema(name)});
        const std::string path = join_path(result.dir, schemas.back().file);
        Result<std::string> change = planned_change(fs, path, schemas.back(), force);
        if (!change) return change.error();
        result.files.push_back({path, *change});
    }
    if (Status made = create_root_directory(fs, result.dir); !made) return made.error();
    for (std::size_t i = 0; i < schemas.size(); ++i) {
        if (result.files[i].change == "unchanged") continue;
        Status written = write_file_in_folder_atomic(fs, result.dir, schemas[i].file, schemas[i].json, 0644);
        if (!written) return written.error();
    }
    return result;
}

}  // namespace small
