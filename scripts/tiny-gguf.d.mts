// Types for scripts/tiny-gguf.mjs, so TypeScript tests (Node and browser) can import it.
export interface TinyGgufOptions {
  /** PRNG seed for the weights; the same seed gives byte-identical files. Default 1234. */
  seed?: number;
  /** Transformer blocks. Default 4. */
  layers?: number;
  /** Embedding width. Default 64. */
  embd?: number;
  /** Feed-forward width. Default 192. */
  ff?: number;
  /** Attention heads (embd must be a multiple). Default 4. */
  heads?: number;
  /** Context length the metadata declares. Default 4096. */
  ctx?: number;
  /** general.name. */
  name?: string;
  /** tokenizer.chat_template (default ChatML); `null` leaves the key out. */
  chatTemplate?: string | null;
}
export declare const CHATML_TEMPLATE: string;
export declare function tinyVocabulary(): {
  tokens: string[];
  types: number[];
  unk: number;
  bos: number;
  eos: number;
  imStart: number;
  imEnd: number;
};
export declare function tinyGguf(options?: TinyGgufOptions): Uint8Array;
export declare function writeTinyGguf(path: string, options?: TinyGgufOptions): Promise<string>;
