#include "small/base/result.hpp"

#include <cstring>

namespace small {

Error Error::from_errno(const std::string& what, const std::string& path, int err) {
    return system(what + " " + path + ": " + std::strerror(err));
}

std::string Error::describe() const {
    std::string out;
    if (!file.empty()) {
        out += file;
        if (line > 0) {
            out.append(":").append(std::to_string(line));
            if (column > 0) out.append(":").append(std::to_string(column));
        }
        out += ": ";
    }
    return out + message;
}

}  // namespace small
