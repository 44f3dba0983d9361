"""Bank files, without Qt and without the network: ISO 20022 payment files read (pain.001),
status reports and statements written (pain.002, camt.053), each checked against the official
schema bundled under resources/xsd, and untrusted XML read within bounds."""
