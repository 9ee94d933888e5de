export declare const LOCAL_REDIS_URL: string;
export declare function testRedisUrl(): Promise<string>;
export declare function setup(): Promise<void>;
