// SHOC "MD5Hash" (level 1): a brute-force search of a key space for the key whose MD5 digest is given.
// Written for gpusim from SHOC's published algorithm and RFC 1321: key `index` is the byteLength base-
// valsPerByte digits of index, one per byte; each thread tries the valsPerByte keys that differ only in
// their first byte, hashing each key's single padded 64-byte block with the 64 MD5 steps (straight-line
// integer code: adds, rotates, boolean functions), comparing the digest with the target and, on a match,
// recording the key's index, the key and the digest.  Integer arithmetic only.
#define ROTL(x, c) (((x) << (c)) | ((x) >> (32 - (c))))

#define STEP(f, a, b, c, d, x, t, s) \
    a += f(b, c, d) + (x) + (t);     \
    a = ROTL(a, s);                  \
    a += b;

#define F(x, y, z) (((x) & (y)) | (~(x) & (z)))
#define G(x, y, z) (((x) & (z)) | ((y) & ~(z)))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))

__device__ void md5_block(const unsigned int *w, unsigned int &a0, unsigned int &b0, unsigned int &c0,
                          unsigned int &d0)
{
    unsigned int a = 0x67452301u, b = 0xefcdab89u, c = 0x98badcfeu, d = 0x10325476u;

    STEP(F, a, b, c, d, w[0],  0xd76aa478u, 7)  STEP(F, d, a, b, c, w[1],  0xe8c7b756u, 12)
    STEP(F, c, d, a, b, w[2],  0x242070dbu, 17) STEP(F, b, c, d, a, w[3],  0xc1bdceeeu, 22)
    STEP(F, a, b, c, d, w[4],  0xf57c0fafu, 7)  STEP(F, d, a, b, c, w[5],  0x4787c62au, 12)
    STEP(F, c, d, a, b, w[6],  0xa8304613u, 17) STEP(F, b, c, d, a, w[7],  0xfd469501u, 22)
    STEP(F, a, b, c, d, w[8],  0x698098d8u, 7)  STEP(F, d, a, b, c, w[9],  0x8b44f7afu, 12)
    STEP(F, c, d, a, b, w[10], 0xffff5bb1u, 17) STEP(F, b, c, d, a, w[11], 0x895cd7beu, 22)
    STEP(F, a, b, c, d, w[12], 0x6b901122u, 7)  STEP(F, d, a, b, c, w[13], 0xfd987193u, 12)
    STEP(F, c, d, a, b, w[14], 0xa679438eu, 17) STEP(F, b, c, d, a, w[15], 0x49b40821u, 22)

    STEP(G, a, b, c, d, w[1],  0xf61e2562u, 5)  STEP(G, d, a, b, c, w[6],  0xc040b340u, 9)
    STEP(G, c, d, a, b, w[11], 0x265e5a51u, 14) STEP(G, b, c, d, a, w[0],  0xe9b6c7aau, 20)
    STEP(G, a, b, c, d, w[5],  0xd62f105du, 5)  STEP(G, d, a, b, c, w[10], 0x02441453u, 9)
    STEP(G, c, d, a, b, w[15], 0xd8a1e681u, 14) STEP(G, b, c, d, a, w[4],  0xe7d3fbc8u, 20)
    STEP(G, a, b, c, d, w[9],  0x21e1cde6u, 5)  STEP(G, d, a, b, c, w[14], 0xc33707d6u, 9)
    STEP(G, c, d, a, b, w[3],  0xf4d50d87u, 14) STEP(G, b, c, d, a, w[8],  0x455a14edu, 20)
    STEP(G, a, b, c, d, w[13], 0xa9e3e905u, 5)  STEP(G, d, a, b, c, w[2],  0xfcefa3f8u, 9)
    STEP(G, c, d, a, b, w[7],  0x676f02d9u, 14) STEP(G, b, c, d, a, w[12], 0x8d2a4c8au, 20)

    STEP(H, a, b, c, d, w[5],  0xfffa3942u, 4)  STEP(H, d, a, b, c, w[8],  0x8771f681u, 11)
    STEP(H, c, d, a, b, w[11], 0x6d9d6122u, 16) STEP(H, b, c, d, a, w[14], 0xfde5380cu, 23)
    STEP(H, a, b, c, d, w[1],  0xa4beea44u, 4)  STEP(H, d, a, b, c, w[4],  0x4bdecfa9u, 11)
    STEP(H, c, d, a, b, w[7],  0xf6bb4b60u, 16) STEP(H, b, c, d, a, w[10], 0xbebfbc70u, 23)
    STEP(H, a, b, c, d, w[13], 0x289b7ec6u, 4)  STEP(H, d, a, b, c, w[0],  0xeaa127fau, 11)
    STEP(H, c, d, a, b, w[3],  0xd4ef3085u, 16) STEP(H, b, c, d, a, w[6],  0x04881d05u, 23)
    STEP(H, a, b, c, d, w[9],  0xd9d4d039u, 4)  STEP(H, d, a, b, c, w[12], 0xe6db99e5u, 11)
    STEP(H, c, d, a, b, w[15], 0x1fa27cf8u, 16) STEP(H, b, c, d, a, w[2],  0xc4ac5665u, 23)

    STEP(I, a, b, c, d, w[0],  0xf4292244u, 6)  STEP(I, d, a, b, c, w[7],  0x432aff97u, 10)
    STEP(I, c, d, a, b, w[14], 0xab9423a7u, 15) STEP(I, b, c, d, a, w[5],  0xfc93a039u, 21)
    STEP(I, a, b, c, d, w[12], 0x655b59c3u, 6)  STEP(I, d, a, b, c, w[3],  0x8f0ccc92u, 10)
    STEP(I, c, d, a, b, w[10], 0xffeff47du, 15) STEP(I, b, c, d, a, w[1],  0x85845dd1u, 21)
    STEP(I, a, b, c, d, w[8],  0x6fa87e4fu, 6)  STEP(I, d, a, b, c, w[15], 0xfe2ce6e0u, 10)
    STEP(I, c, d, a, b, w[6],  0xa3014314u, 15) STEP(I, b, c, d, a, w[13], 0x4e0811a1u, 21)
    STEP(I, a, b, c, d, w[4],  0xf7537e82u, 6)  STEP(I, d, a, b, c, w[11], 0xbd3af235u, 10)
    STEP(I, c, d, a, b, w[2],  0x2ad7d2bbu, 15) STEP(I, b, c, d, a, w[9],  0xeb86d391u, 21)

    a0 = a + 0x67452301u;
    b0 = b + 0xefcdab89u;
    c0 = c + 0x98badcfeu;
    d0 = d + 0x10325476u;
}

extern "C" __global__ void FindKeyWithDigest_Kernel(const unsigned int *searchDigest, int keyspace,
                                                    int byteLength, int valsPerByte,
                                                    int *foundIndex, unsigned char *foundKey,
                                                    unsigned int *foundDigest)
{
    int thread = blockIdx.x * blockDim.x + threadIdx.x;

    for (int first = 0; first < valsPerByte; first++) {
        int index = thread * valsPerByte + first;
        if (index >= keyspace) {
            return;
        }

        // the key: byte i is digit i (least significant first) of index in base valsPerByte
        unsigned char key[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int rest = index;
        for (int i = 0; i < byteLength; i++) {
            key[i] = (unsigned char)(rest % valsPerByte);
            rest /= valsPerByte;
        }

        // one 512-bit block: the key, the 0x80 terminator, zeros, the length in bits (byteLength <= 7)
        unsigned int w[16];
        for (int i = 0; i < 16; i++) {
            w[i] = 0;
        }
        w[0] = key[0] | (key[1] << 8) | (key[2] << 16) | (key[3] << 24);
        w[1] = key[4] | (key[5] << 8) | (key[6] << 16) | (key[7] << 24);
        w[byteLength / 4] |= 0x80u << (8 * (byteLength % 4));
        w[14] = byteLength * 8;

        unsigned int a, b, c, d;
        md5_block(w, a, b, c, d);

        if (a == searchDigest[0] && b == searchDigest[1] && c == searchDigest[2] && d == searchDigest[3]) {
            *foundIndex = index;
            for (int i = 0; i < byteLength; i++) {
                foundKey[i] = key[i];
            }
            foundDigest[0] = a;
            foundDigest[1] = b;
            foundDigest[2] = c;
            foundDigest[3] = d;
        }
    }
}
