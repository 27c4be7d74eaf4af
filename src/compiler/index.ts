/** The contract compiler (Node): `compileContracts`, `scanDeclarations`. */
export {};
