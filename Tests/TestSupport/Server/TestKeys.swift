enum TestKeys {
    /// A throwaway key pair made for these tests only.
    static let rsaPrivate = """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDGp/oLkr6s+g4w
        hR28/JFugQ5NDpFpCWsoh8NIa4oK3rCWKaDz+gE9lAZryk2/am++3CP1xgT2leVW
        B92lgJLuGyDop4rDAXCPCImYJn2IbjyoaKGaJQs/7xGDF1B27h/Q6Ap4pApVpZDd
        LLWIU5JQFuC6rPFj3pabJKoZIiao80rF9hNpM1rfLnNN2jfchTMBzVCeCnd15rqw
        7xcCZxEIFRxMZ8nbDBkqCJcZo/PVUm42U9aCAGeZALjBVYEVve7ZomaKlxGBInge
        6lmVWPtedzoLJ/MmqX69HOSE8vHEfUhSY+jbeAoevk3o5giOXNIfUxrr+YcaeICW
        t5r/x6yNAgMBAAECggEAHDaD/PvIx7E1ra9iE1J9Zwe+G7R7c0LqrJVnZxQaxUNu
        Kc1ctfmmDnRE2y8ejpZTq3QBSWjnkIumR+sTD+usMlO4/0G4I8zDCxVH0Ut6HZOm
        WraNaOJk8B4ISylW/KUB8L3bqtmFPDeo1LiCSYuw5l3xaaGhILFei0cQP0SJ4Al5
        BNRek8QzHW9v+PGigWE4QyS5VQsvcOVFyNSKCAktLddS0F5lSYFNny8rYWi2tzq8
        PjmOddtQVnZHF6RK4N9EShNvsi2WvDg8HOe7Lt/6ohHX/3aCe8Iy3goVMGZfQ0Qw
        /FJYoDKdpn9s+16iGfbsVBI9CnC+rJOm1FIQCCVNgQKBgQD6yrQ0cdnob0EYv4D4
        F9v19m20T0YAbh3TAPbuFNtwoHa94Kf3GDM/Rzu5jt537qnbuTDJCCv3QoqK2lHl
        C7U5nr9TkSjVoyPtNtqCBwU+glF7VA0v1vuH3tx+qrkL2jNvdZ16icLosAdQ4Q0t
        dWYMiGvk5lt+vSG/eR3csxpDwQKBgQDKyBoE60DjelKPUDZqcPxP/7nCBeSsYyZH
        Tf0dUaEaEkH57VwEqEnu5l4rw2aoeVQiMC8tV6zarVUB1A2Cuve/MOkMhXaD4TaT
        BDshycmte8WIHCgXJuYZE9UDYtcfzwvbvH0+DBYk04DxNZILuR+GlxD80iz4sRv3
        NFKJqd4rzQKBgQDqVj/eBUf81P/5lO94YirpABNv+ObK/hmmEO+qdRi6e2WYdHPe
        AeHYzcGz2Bht7jcPFVLNdXJHfwifR/Jf1/nFVl0mQ6vpO6AVRj0UZGT1DKYAXABa
        ZEHxqj9TqEhyF7gZ/MdiOZlC/UBIxZEfmeP57/sJDmoN2cHP/Ob3Uu9GwQKBgG7y
        dpH0aSdM2PkCaRNpyBK5FthaQxgyk1H2EKPG8r8B+EkXHf6KWRE1x5ZoLbXF1Et0
        U4uaab+nkFgUvmOlikF4MDoil4pmYWakrPm6nvalPplO1nx8Uu6rlCNrI8qKjLFn
        +ppFIKR7eBQBPGvfmKkZ5Dh/gg17UZK6dOJPJ3iNAoGBAJWV498JhUxNka1Yk9UC
        ChcCn1bgSTNh+W+wSjqZp4yLYF5C/Fz02IuUvWxYEdL4Qlc4k/guASEogaKt8Zl3
        dD1P/fYiktv18RHuB0rWq/R+97JM8GKzSoRb6kxzXa0ur9NpqPDA1IL+kfe3mWTD
        kRdfnOrKVSegx5LOhyIK4t4P
        -----END PRIVATE KEY-----
        """
    static let rsaPublic = """
        -----BEGIN PUBLIC KEY-----
        MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAxqf6C5K+rPoOMIUdvPyR
        boEOTQ6RaQlrKIfDSGuKCt6wlimg8/oBPZQGa8pNv2pvvtwj9cYE9pXlVgfdpYCS
        7hsg6KeKwwFwjwiJmCZ9iG48qGihmiULP+8RgxdQdu4f0OgKeKQKVaWQ3Sy1iFOS
        UBbguqzxY96WmySqGSImqPNKxfYTaTNa3y5zTdo33IUzAc1Qngp3dea6sO8XAmcR
        CBUcTGfJ2wwZKgiXGaPz1VJuNlPWggBnmQC4wVWBFb3u2aJmipcRgSJ4HupZlVj7
        Xnc6CyfzJql+vRzkhPLxxH1IUmPo23gKHr5N6OYIjlzSH1Ma6/mHGniAlrea/8es
        jQIDAQAB
        -----END PUBLIC KEY-----
        """
}
