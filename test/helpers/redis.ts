import { Redis } from 'ioredis';

/** Removes every key a test wrote under its own prefix on the Redis at `url`. */
export async function dropRedisKeys(url: string, prefix: string): Promise<void> {
    const redis = new Redis(url);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) {
        await redis.del(...keys);
    }

    await redis.quit();
}
