// JSON Schema validation of the canonical artifacts (D1).
// The five v1.0.0 schemas are compiled into the binary; a spec directory
// (--spec-dir / SMALL_SPEC_DIR) may override them.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/doc/document.hpp"
#include "small/base/result.hpp"

namespace small {

struct EmbeddedSchema {
    const char* artifact;  // "intent", "constraints", "plan", "progress", "handoff"
    const char* json;
};

// Generated at build time from schemas/*.schema.json.
const std::vector<EmbeddedSchema>& embedded_schemas();
// The built-in schema text of `artifact` ("plan"), nullptr for any other name.
const char* embedded_schema(std::string_view artifact);

// Issue 41: the schemas editors get (`schema export`, `hooks install
// vscode`): the canonical ones, which verdicts use and which stay
// byte-identical to the reference's, plus a description for each field and
// the five plan statuses as an enum on a task's `status` (the canonical plan
// schema allows any value: `status: done` passed an editor), and one for
// `workspace.small.yml` ("workspace"). Validation keeps its meaning
// otherwise: a document the canonical schema accepts and small reads is
// accepted.
std::vector<std::string> editor_schema_names();   // the five artifacts, then "workspace"
std::string editor_schema(std::string_view name);  // its text; "" for another name

// One schema violation, located in the source document.
struct SchemaViolation {
    std::string pointer;   // JSON pointer of the offending value ("" = root)
    std::string message;   // what is wrong and what the v1.0.0 shape is
    Mark mark;             // where the offending value (or its parent) starts
};

class SchemaSet {
public:
    // The compiled-in schemas.
    static Result<SchemaSet> embedded();
    // The same, shared by the process, each schema compiled on its first use
    // (a writer validates one or two small documents; compiling all five
    // schemas costs more than that). Never an error: an embedded schema that
    // does not compile (a bad build) is reported by validate() as a violation.
    static Result<const SchemaSet*> embedded_shared();
    // Schemas from DIR/small/v1.0.0/schemas/<artifact>.schema.json, or
    // DIR/<artifact>.schema.json.
    static Result<SchemaSet> from_directory(const FileSystem& fs, const std::string& dir);
    // The editor schemas (editor_schema), "workspace" included: for tests.
    static Result<SchemaSet> editor();

    // Validates `doc` against the schema of `artifact`.
    std::vector<SchemaViolation> validate(std::string_view artifact, const Document& doc) const;
    // Whether validate()'s fast accept path alone proves `doc` valid (it then
    // skips valijson, the authority); false when that path cannot tell. For
    // the tests that hold the path to valijson.
    bool fast_accepts(std::string_view artifact, const Document& doc) const;

    // Where the schemas came from ("embedded v1.0.0 schemas" or a path).
    const std::string& source() const { return source_; }

    struct Impl;  // compiled schemas (opaque; defined in schema.cpp)

    SchemaSet(SchemaSet&&) noexcept;
    SchemaSet& operator=(SchemaSet&&) noexcept;
    ~SchemaSet();

private:
    SchemaSet();
    std::unique_ptr<Impl> impl_;
    std::string source_;
};

}  // namespace small
