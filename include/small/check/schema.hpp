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

    // Validates `doc` against the schema of `artifact`.
    std::vector<SchemaViolation> validate(std::string_view artifact, const Document& doc) const;

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
