// The --json shape of `small hooks install|uninstall|print` (docs/json/hooks.schema.json).
#pragma once

#include <nlohmann/json.hpp>

#include "small/domain/hook_install.hpp"

namespace small {

// {target, dry_run, changed, written, files: [{path, change, diff?}], notes,
// content?}: a dry run adds each file's diff, print the content.
nlohmann::json hooks_json(const HooksResult& r);

}  // namespace small
