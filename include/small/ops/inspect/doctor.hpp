// `small doctor`: every check of a workspace, each with what to do about it.
// Read-only (writes nothing, not even a cache). Reuses the rule engine of
// the verdict commands (check/), so it reports what `check --strict` and
// `verify --strict` would refuse, grouped by what a person fixes.
#pragma once

#include <string>
#include <vector>

#include "small/base/filesystem.hpp"
#include "small/check/finding.hpp"
#include "small/check/schema.hpp"
#include "small/doc/entry_windows.hpp"
#include "small/model/workspace.hpp"

namespace small {

enum class DoctorStatus { Ok, Warning, Error };
const char* doctor_status_name(DoctorStatus status);  // "ok", "warning", "error"

struct DoctorCheck {
    std::string category;    // "Workspace", "Metadata", "Files", "Runtime Layout", ...
    DoctorStatus status = DoctorStatus::Ok;
    std::string message;
    std::string suggestion;  // what to run or change; may be empty
    std::vector<Finding> findings;  // the rule findings behind it (file:line:column)
};

struct DoctorReport {
    std::vector<DoctorCheck> checks;  // in the order they ran
    std::size_t errors = 0, warnings = 0;
};

// Categories, in order: Workspace, Metadata, Files, Runtime Layout, Loading,
// Merge (conflict markers in a file that did not load), Schema, Invariant, Strict, Replay Id, Version, Run State, Progress,
// Handoff. Without .small/ only Workspace; with files missing or not
// loading, the content checks are left out. A long log is read in
// `windows` (memory flat in its length, any length; issue 39) unless a
// finding in it needs the whole read to say where: the report is the same.
DoctorReport doctor_command(const FileSystem& fs, const WorkspacePaths& ws, const SchemaSet& schemas,
                            const LogWindows& windows = {});

}  // namespace small
