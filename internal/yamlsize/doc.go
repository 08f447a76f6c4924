// Package yamlsize bounds what yaml.v3 would build of a document before
// it builds it: yaml.v3 has no limit of its own on nodes or aliases, and
// 40 MB of aliases became 2.1 GB of nodes. Every YAML input xdpmicro
// reads (case files, --map-init files, --set values) is counted here
// first and refused past its budget.
package yamlsize
