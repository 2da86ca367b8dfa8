#pragma once
// The report's schema name and version (docs/report-schema.md), shared by writer and readers.
namespace nb {

inline constexpr const char* kReportSchema = "normbench.report";
inline constexpr int kReportSchemaVersion = 1;

}  // namespace nb
