// Package codelimits holds the module's code to its limits: no function
// longer than 80 lines, from its func line to its closing brace, and none
// longer than 50 under cmd/, where a command's function is glue from
// flags to the API. Generated code (bpf2go's, and any file marked "Code
// generated") and tests are not held. The package has no code: its test
// checks the whole module (docs/development.md, "Limits kept").
package codelimits
