// The browser suites run under mocha (web-test-runner); only the globals they use are declared here.
declare function describe(title: string, body: (this: unknown) => void): void;
declare function it(title: string, body: (this: unknown) => void | Promise<void>): void;
declare function before(body: () => void | Promise<void>): void;
declare function after(body: () => void | Promise<void>): void;
declare function beforeEach(body: () => void | Promise<void>): void;
declare function afterEach(body: () => void | Promise<void>): void;
