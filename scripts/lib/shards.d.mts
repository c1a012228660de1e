// Types of shards.mjs.
export declare function shardBindings(tomlText: string, env?: string): string[];
export declare function projectShards(dir: string, env?: string): string[];
